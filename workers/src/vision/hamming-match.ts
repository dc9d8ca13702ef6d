/**
 * AKAZE's ratio-tested matching for a whole shortlist in one ONNX run, instead of one OpenCV.js
 * brute-force Hamming search per pair: each binary descriptor's bits become ±1, so a matrix
 * product gives `bits − 2 × Hamming distance` exactly (float32 holds these small integers), and
 * TopK gives each query keypoint's two nearest gallery keypoints. The ratio test and the
 * one-query-per-gallery-keypoint rule are then those of `tentativeMatches` (verify.ts), so the
 * pairs are the same; on a GPU worker it runs on CUDA.
 */
import * as ort from 'onnxruntime-node';
import type { LocalFeatures } from './keypoints.js';
import { columnsBatch, GraphBuilder } from './onnx-graph.js';
import { sessionFromBytes } from './registry.js';

/** Gallery images matched per run, to bound the memory of one run. */
const CHUNK = 16;
/** Added to a padding column's score, so that it is never one of the two nearest. */
const NEVER = -1e6;

function buildGraph(): Uint8Array {
  const g = new GraphBuilder('hamming-knn2');
  g.input('q', 'float', [1, 'KQ', 'B']);
  g.input('gt', 'float', ['N', 'B', 'KG']);
  g.input('pad', 'float', ['N', 1, 'KG']);
  const score = g.op('Add', [g.op('MatMul', ['q', 'gt']), 'pad']);
  g.ops('TopK', [score, g.int64([2])], 2, { axis: 2, largest: 1, sorted: 1 }, ['top', 'top_index']);
  g.output('top', 'float', ['N', 'KQ', 2]);
  g.output('top_index', 'int64', ['N', 'KQ', 2]);
  return g.encode('markless/workers/src/vision/hamming-match.ts');
}

let session: Promise<{ session: ort.InferenceSession }> | undefined;

/** Descriptor bits as ±1, `count` rows of `descBytes × 8`. */
function signs(f: LocalFeatures): Float32Array {
  const bits = f.descBytes * 8;
  const out = new Float32Array(f.count * bits);
  for (let i = 0; i < f.count * f.descBytes; i++) {
    const byte = f.desc[i]!;
    for (let b = 0; b < 8; b++) out[i * 8 + b] = (byte >> (7 - b)) & 1 ? 1 : -1;
  }
  return out;
}

/**
 * Ratio-tested, one-to-one tentative matches (query index, gallery index) of one query against
 * many gallery images; the same pairs as `tentativeMatches` for each.
 */
export async function hammingMatchesBatch(
  q: LocalFeatures,
  gallery: readonly LocalFeatures[],
  ratio: number,
): Promise<Array<Array<[number, number]>>> {
  const out: Array<Array<[number, number]>> = gallery.map(() => []);
  const live = gallery.flatMap((g, i) => (g.count >= 2 && g.descBytes === q.descBytes ? [i] : []));
  if (q.count === 0 || live.length === 0) return out;
  session ??= sessionFromBytes(buildGraph(), 'hamming-knn2');
  const run = (await session).session;
  const bits = q.descBytes * 8;
  const qs = signs(q);
  for (let at = 0; at < live.length; at += CHUNK) {
    const chunk = live.slice(at, at + CHUNK);
    const { data: gt, width: kg } = columnsBatch(
      chunk.map((gi) => ({ rows: signs(gallery[gi]!), count: gallery[gi]!.count })),
      bits,
    );
    const pad = new Float32Array(chunk.length * kg);
    chunk.forEach((gi, b) => pad.fill(NEVER, b * kg + gallery[gi]!.count, (b + 1) * kg));
    const res = await run.run({
      q: new ort.Tensor('float32', qs, [1, q.count, bits]),
      gt: new ort.Tensor('float32', gt, [chunk.length, bits, kg]),
      pad: new ort.Tensor('float32', pad, [chunk.length, 1, kg]),
    });
    const top = res.top!.data as Float32Array;
    const index = res.top_index!.data as BigInt64Array;
    chunk.forEach((gi, b) => {
      // As tentativeMatches: the ratio test on Hamming distances, then the best query per gallery keypoint.
      const best = new Map<number, { q: number; d: number }>();
      for (let i = 0; i < q.count; i++) {
        const k = (b * q.count + i) * 2;
        const d0 = (bits - top[k]!) / 2;
        const d1 = (bits - top[k + 1]!) / 2;
        if (!(d0 < ratio * d1)) continue;
        const j = Number(index[k]);
        const prev = best.get(j);
        if (!prev || d0 < prev.d) best.set(j, { q: i, d: d0 });
      }
      out[gi] = [...best.entries()].map(([j, { q: i }]) => [i, j]);
    });
  }
  return out;
}
