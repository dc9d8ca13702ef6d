/**
 * The geometric check of many query/gallery pairs at once, as an ONNX graph: a RANSAC homography
 * fit whose hypotheses are scored for every pair of a shortlist in one run, so it runs on the
 * engine's execution provider (CUDA on a GPU worker) instead of one OpenCV.js call per pair on
 * the CPU. The same graph on the CPU provider is its twin; `geometricInliers` (OpenCV's USAC,
 * verify.ts) stays the CPU path, and `benchmarks/verify-twins.ts` compares the verdicts.
 *
 * One fit, per pair:
 * 1. rounds of hypotheses from seeded minimal samples of 4 tentative matches (the seed is the
 *    pair's size, so a pair gets the same samples whatever else is in the batch), scored in the
 *    graph (robust-fit-graph.ts); a pair whose best consensus is still too thin to trust gets
 *    another round, up to a cap, as RANSAC's stopping rule asks;
 * 2. a local optimisation round in the graph: minimal samples drawn from the consensus only;
 * 3. the iterated least squares and USAC's inner local optimisation in float64 (homography.ts).
 *
 * ```ts
 * const [kept] = await batchedInliers([{ q, g, pairs }], 6);   // inlier (query, gallery) pairs
 * ```
 */
import * as ort from 'onnxruntime-node';
import { polish, prepare, samples, type FitTask, type Prepared } from './homography.js';
import { sessionFromBytes, type Provider } from './registry.js';
import { buildFitGraph } from './robust-fit-graph.js';
import { MIN_TENTATIVE } from './verify.js';

export type { FitTask } from './homography.js';

export interface FitOptions {
  /** Most hypotheses a pair is given (default 2048). */
  hypotheses?: number;
  /** Hypotheses a round scores per pair (default 512); a pair whose consensus is thin gets more rounds. */
  round?: number;
  /** `auto`: CUDA when present; `cpu`: the CPU twin. */
  provider?: 'auto' | 'cpu';
}

/** Most elements (pairs × hypotheses × matches) one graph run scores, to bound its memory. */
const RUN_ELEMENTS = 1 << 21;

const sessions = new Map<string, Promise<{ session: ort.InferenceSession; provider: Provider }>>();

function fitSession(provider: 'auto' | 'cpu') {
  let s = sessions.get(provider);
  if (!s) {
    s = sessionFromBytes(buildFitGraph(), 'batched-homography-ransac', { provider });
    sessions.set(provider, s);
  }
  return s;
}

/** Where the fit runs when asked with `provider` (CUDA only when its library and a GPU are there). */
export async function fitProvider(provider: 'auto' | 'cpu' = 'auto'): Promise<Provider> {
  return (await fitSession(provider)).provider;
}

/**
 * Hypotheses that find an all-inlier minimal sample with 99% confidence, given the inlier share the
 * best consensus so far shows (RANSAC's stopping rule, as USAC's).
 */
function hypothesesNeeded(inliers: number, n: number): number {
  const w = (inliers / n) ** 4;
  if (w >= 1) return 1;
  if (w <= 0) return Infinity;
  return Math.log(0.01) / Math.log(1 - w);
}

/**
 * Runs the graph over pairs (each with its flat sample indices); returns each pair's best
 * hypothesis's inlier indices.
 */
async function scoreRound(
  session: ort.InferenceSession,
  items: readonly { p: Prepared; idx: number[] }[],
  thr2: number,
): Promise<number[][]> {
  const out: number[][] = [];
  let at = 0;
  while (at < items.length) {
    // As many pairs as fit the element budget, all of one sample count (a tensor's shape).
    const s = items[at]!.idx.length;
    let k = items[at]!.p.n;
    let end = at + 1;
    while (end < items.length && items[end]!.idx.length === s) {
      const k2 = Math.max(k, items[end]!.p.n);
      if ((end + 1 - at) * (s / 4) * k2 > RUN_ELEMENTS) break;
      k = k2;
      end++;
    }
    const chunk = items.slice(at, end);
    const n = chunk.length;
    const src = new Float32Array(n * k * 2);
    const dst = new Float32Array(n * k * 2);
    const valid = new Float32Array(n * k);
    const idx = new BigInt64Array(n * s);
    chunk.forEach(({ p, idx: ix }, b) => {
      src.set(p.src, b * k * 2);
      dst.set(p.dst, b * k * 2);
      valid.fill(1, b * k, b * k + p.n);
      ix.forEach((v, j) => (idx[b * s + j] = BigInt(v)));
    });
    const res = await session.run({
      src: new ort.Tensor('float32', src, [n, k, 2]),
      dst: new ort.Tensor('float32', dst, [n, k, 2]),
      valid: new ort.Tensor('float32', valid, [n, k]),
      idx: new ort.Tensor('int64', idx, [n, s]),
      thr2: new ort.Tensor('float32', Float32Array.of(thr2), [1]),
    });
    const mask = res.mask!.data as Float32Array;
    chunk.forEach(({ p }, b) => {
      const kept: number[] = [];
      for (let j = 0; j < p.n; j++) if (mask[b * k + j]! > 0.5) kept.push(j);
      out.push(kept);
    });
    at = end;
  }
  return out;
}

/** Minimal samples drawn from a consensus in the graph's local optimisation round. */
const REFINE = 128;

/**
 * The inlier pairs (query index, gallery index) of each task, by the batched fit; a task with
 * fewer than 8 tentative matches keeps none, as `geometricInliers`.
 */
export async function batchedInliers(
  tasks: readonly FitTask[],
  reprojPx: number,
  opts: FitOptions = {},
): Promise<Array<Array<[number, number]>>> {
  const result: Array<Array<[number, number]>> = tasks.map(() => []);
  const live = tasks.flatMap((t, i) => (t.pairs.length >= MIN_TENTATIVE ? [i] : []));
  if (live.length === 0) return result;
  const { session } = await fitSession(opts.provider ?? 'auto');
  const prepared = live.map((i) => prepare(tasks[i]!, reprojPx));
  const thr2 = prepared[0]!.thr2;
  const perRound = opts.round ?? 512;
  const most = opts.hypotheses ?? 2048;
  const best: number[][] = prepared.map(() => []);
  // Rounds of fresh hypotheses while a pair's consensus is too thin to trust (USAC's adaptive stop).
  let open = prepared.map((_, j) => j);
  for (let round = 0; open.length > 0 && round * perRound < most; round++) {
    const found = await scoreRound(
      session,
      open.map((j) => ({ p: prepared[j]!, idx: samples(prepared[j]!.n, perRound, prepared[j]!.n + round * 7919) })),
      thr2,
    );
    open.forEach((j, r) => {
      if (found[r]!.length > best[j]!.length) best[j] = found[r]!;
    });
    open = open.filter((j) => hypothesesNeeded(best[j]!.length, prepared[j]!.n) > (round + 1) * perRound);
  }
  // Local optimisation in the graph: minimal samples drawn from each consensus only.
  const refinable = prepared.flatMap((_, j) => (best[j]!.length >= 8 ? [j] : []));
  const inner = await scoreRound(
    session,
    refinable.map((j) => ({
      p: prepared[j]!,
      idx: samples(best[j]!.length, REFINE, prepared[j]!.n * 131 + best[j]!.length).map((k) => best[j]![k]!),
    })),
    thr2,
  );
  refinable.forEach((j, r) => {
    if (inner[r]!.length > best[j]!.length) best[j] = inner[r]!;
  });
  live.forEach((i, j) => {
    const kept = best[j]!.length >= 4 ? polish(prepared[j]!, best[j]!) : [];
    result[i] = kept.map((k) => [tasks[i]!.pairs[k]![0], tasks[i]!.pairs[k]![1]]);
  });
  return result;
}
