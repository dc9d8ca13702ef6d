/**
 * The float64 side of the batched fit (robust-fit.ts): a pair in the fit's coordinates, the
 * least-squares homography, and the local optimisation of a consensus as LO-RANSAC and USAC do it.
 * A few small solves a pair, cheap next to the scoring the graph does.
 */
import { mulberry32 as rng } from './seeded.js';

/** One pair to check: keypoints in pixels of each image, and the tentative matches (query, gallery). */
export interface FitTask {
  q: { xy: Float32Array; width: number; height: number };
  g: { xy: Float32Array; width: number; height: number };
  pairs: ReadonlyArray<readonly [number, number]>;
}

/** `count` samples of 4 distinct indices below `n` (at least 4), flat, drawn from `seed`. */
export function samples(n: number, count: number, seed: number): number[] {
  if (n < 4) throw new RangeError(`4 distinct samples asked of ${n}`);
  const r = rng(seed);
  const out: number[] = [];
  for (let h = 0; h < count; h++) {
    const pick: number[] = [];
    while (pick.length < 4) {
      const k = Math.floor(r() * n);
      if (!pick.includes(k)) pick.push(k);
    }
    out.push(...pick);
  }
  return out;
}

/** A pair in the fit's coordinates: each image's points over its longest side. */
export interface Prepared {
  n: number;
  src: Float64Array;
  dst: Float64Array;
  thr2: number;
}

/** A pair's matches over each image's longest side, and the threshold squared in those units. */
export function prepare(t: FitTask, reprojPx: number): Prepared {
  const n = t.pairs.length;
  const sq = Math.max(t.q.width, t.q.height);
  const sg = Math.max(t.g.width, t.g.height);
  const src = new Float64Array(n * 2);
  const dst = new Float64Array(n * 2);
  t.pairs.forEach(([qi, gi], k) => {
    src[k * 2] = t.q.xy[qi * 2]! / sq;
    src[k * 2 + 1] = t.q.xy[qi * 2 + 1]! / sq;
    dst[k * 2] = t.g.xy[gi * 2]! / sg;
    dst[k * 2 + 1] = t.g.xy[gi * 2 + 1]! / sg;
  });
  // The threshold is in gallery pixels at a 640 px long side, as geometricInliers takes it.
  return { n, src, dst, thr2: (reprojPx / 640) ** 2 };
}

/** Least-squares homography (h33 = 1) through the given matches, in float64; null when singular. */
export function leastSquaresHomography(p: Prepared, use: readonly number[]): Float64Array | null {
  const A = new Float64Array(64);
  const b = new Float64Array(8);
  const row = new Float64Array(8);
  const accumulate = (rhs: number) => {
    for (let i = 0; i < 8; i++) {
      b[i]! += row[i]! * rhs;
      for (let j = 0; j < 8; j++) A[i * 8 + j]! += row[i]! * row[j]!;
    }
  };
  for (const k of use) {
    const x = p.src[k * 2]!;
    const y = p.src[k * 2 + 1]!;
    const u = p.dst[k * 2]!;
    const v = p.dst[k * 2 + 1]!;
    row.set([x, y, 1, 0, 0, 0, -x * u, -y * u]);
    accumulate(u);
    row.set([0, 0, 0, x, y, 1, -x * v, -y * v]);
    accumulate(v);
  }
  if (use.length < 4) return null;
  // Gaussian elimination with partial pivoting; a pivot this small next to the diagonal is a
  // rank-deficient system (too few or collinear matches).
  const tiny = 1e-12 * Math.max(...Array.from({ length: 8 }, (_, i) => Math.abs(A[i * 8 + i]!)));
  for (let c = 0; c < 8; c++) {
    let piv = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r * 8 + c]!) > Math.abs(A[piv * 8 + c]!)) piv = r;
    if (Math.abs(A[piv * 8 + c]!) <= tiny) return null;
    if (piv !== c) {
      for (let j = 0; j < 8; j++) [A[c * 8 + j], A[piv * 8 + j]] = [A[piv * 8 + j]!, A[c * 8 + j]!];
      [b[c], b[piv]] = [b[piv]!, b[c]!];
    }
    for (let r = c + 1; r < 8; r++) {
      const f = A[r * 8 + c]! / A[c * 8 + c]!;
      for (let j = c; j < 8; j++) A[r * 8 + j]! -= f * A[c * 8 + j]!;
      b[r]! -= f * b[c]!;
    }
  }
  const h = new Float64Array(9);
  for (let r = 7; r >= 0; r--) {
    let s = b[r]!;
    for (let j = r + 1; j < 8; j++) s -= A[r * 8 + j]! * h[j]!;
    h[r] = s / A[r * 8 + r]!;
  }
  h[8] = 1;
  return h;
}

/** Matches a homography keeps within `scale` times the threshold. */
function inliersOf(p: Prepared, h: Float64Array, scale = 1): number[] {
  const kept: number[] = [];
  const thr2 = p.thr2 * scale * scale;
  for (let k = 0; k < p.n; k++) {
    const x = p.src[k * 2]!;
    const y = p.src[k * 2 + 1]!;
    const w = h[6]! * x + h[7]! * y + h[8]!;
    const ex = (h[0]! * x + h[1]! * y + h[2]!) / w - p.dst[k * 2]!;
    const ey = (h[3]! * x + h[4]! * y + h[5]!) / w - p.dst[k * 2 + 1]!;
    if (ex * ex + ey * ey < thr2) kept.push(k);
  }
  return kept;
}

/** Thresholds, as multiples of the true one, of the iterated least squares. */
const WIDEN = [3, 2, 1.5, 1];

/**
 * Iterated least squares as LO-RANSAC does it: refit on the matches within a wider threshold that
 * narrows to the true one, so a minimal sample's error is not locked in.
 */
function iterate(p: Prepared, start: number[]): number[] {
  let best = start.slice();
  let use = start;
  for (const scale of WIDEN) {
    const h = leastSquaresHomography(p, use);
    if (!h) break;
    use = inliersOf(p, h, scale);
    const kept = scale === 1 ? use : inliersOf(p, h);
    if (kept.length > best.length) best = kept;
  }
  return best;
}

/** Samples of the consensus the inner local optimisation refits (USAC's own sizes). */
const INNER_ROUNDS = 5;
const INNER_SAMPLE = 14;

/**
 * The local optimisation of a consensus, in float64 on the CPU (a few small least-squares solves a
 * pair): the iterated least squares of the whole consensus, then of seeded subsets of it (USAC's
 * inner LO), each iterated; the largest consensus wins.
 */
export function polish(p: Prepared, start: number[]): number[] {
  let best = iterate(p, start);
  const r = rng(p.n * 31 + 7);
  for (let round = 0; round < INNER_ROUNDS && best.length > INNER_SAMPLE; round++) {
    const pool = best.slice();
    for (let i = 0; i < INNER_SAMPLE; i++) {
      const j = i + Math.floor(r() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    const h = leastSquaresHomography(p, pool.slice(0, INNER_SAMPLE));
    if (!h) continue;
    const found = iterate(p, inliersOf(p, h));
    if (found.length > best.length) best = found;
  }
  return best;
}
