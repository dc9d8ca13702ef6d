/**
 * Matching XFeat features of one query/gallery pair: mutual nearest
 * neighbours by cosine similarity above a floor (XFeat's own matcher), then
 * the same USAC homography verification as AKAZE; the inliers are the
 * evidence.
 */
import * as ort from 'onnxruntime-node';
import { columnsBatch, GraphBuilder } from './onnx-graph.js';
import { sessionFromBytes } from './registry.js';
import { geometricInliers, type PairEvidence } from './verify.js';
import { XFEAT_DIM, type XFeatFeatures } from './xfeat.js';

export interface XFeatMatchOptions {
  /** Lowest cosine similarity of a kept pair (XFeat's reference uses 0.82). */
  minCos: number;
  /** Reprojection threshold in pixels at a 640 px long side. */
  reprojPx?: number;
}

/** Mutual nearest neighbours (query index, gallery index) with cosine ≥ minCos. */
export function mutualNearest(q: XFeatFeatures, g: XFeatFeatures, minCos: number): Array<[number, number]> {
  const nq = q.count;
  const ng = g.count;
  const bestQ = new Int32Array(nq).fill(-1);
  const bestQv = new Float32Array(nq).fill(-2);
  const bestG = new Int32Array(ng).fill(-1);
  const bestGv = new Float32Array(ng).fill(-2);
  const a = q.desc;
  const b = g.desc;
  for (let i = 0; i < nq; i++) {
    const ai = i * XFEAT_DIM;
    for (let j = 0; j < ng; j++) {
      const bj = j * XFEAT_DIM;
      let s = 0;
      for (let c = 0; c < XFEAT_DIM; c += 4) {
        s += a[ai + c]! * b[bj + c]! + a[ai + c + 1]! * b[bj + c + 1]! + a[ai + c + 2]! * b[bj + c + 2]! + a[ai + c + 3]! * b[bj + c + 3]!;
      }
      if (s > bestQv[i]!) {
        bestQv[i] = s;
        bestQ[i] = j;
      }
      if (s > bestGv[j]!) {
        bestGv[j] = s;
        bestG[j] = i;
      }
    }
  }
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < nq; i++) {
    const j = bestQ[i]!;
    if (j >= 0 && bestG[j] === i && bestQv[i]! >= minCos) pairs.push([i, j]);
  }
  return pairs;
}

/**
 * A tiny ONNX graph, built in memory from operators only (no weights): the
 * similarity of one query's descriptors to a batch of gallery descriptor sets
 * and both directions' nearest neighbours. MLAS's matrix product is an order
 * of magnitude faster than a JavaScript loop, which is what keeps XFeat
 * verification of a whole shortlist inside the latency budget; on a GPU worker
 * it runs on CUDA.
 */
function buildMnnGraph(): Uint8Array {
  const g = new GraphBuilder('mutual-nn');
  g.input('q', 'float', [1, 'KQ', XFEAT_DIM]);
  g.input('gt', 'float', ['N', XFEAT_DIM, 'KG']);
  const sim = g.op('MatMul', ['q', 'gt']);
  g.op('ArgMax', [sim], { axis: 2, keepdims: 0 }, 'q_best');
  g.op('ReduceMax', [sim], { axes: [2], keepdims: 0 }, 'q_best_sim');
  g.op('ArgMax', [sim], { axis: 1, keepdims: 0 }, 'g_best');
  g.output('q_best', 'int64', ['N', 'KQ']);
  g.output('q_best_sim', 'float', ['N', 'KQ']);
  g.output('g_best', 'int64', ['N', 'KG']);
  return g.encode('markless/workers/src/vision/xfeat-match.ts');
}

let mnnSession: Promise<{ session: ort.InferenceSession }> | undefined;

/**
 * Mutual nearest neighbours of one query against many gallery sets at once
 * (same result as `mutualNearest` pair by pair). Gallery sets are padded
 * with zero rows, which never pass `minCos`.
 */
export async function mutualNearestBatch(
  q: XFeatFeatures,
  gallery: readonly XFeatFeatures[],
  minCos: number,
): Promise<Array<Array<[number, number]>>> {
  if (gallery.length === 0 || q.count === 0) return gallery.map(() => []);
  mnnSession ??= sessionFromBytes(buildMnnGraph(), 'mutual-nn');
  const { session } = await mnnSession;
  const out: Array<Array<[number, number]>> = [];
  const CHUNK = 16;
  for (let at = 0; at < gallery.length; at += CHUNK) {
    const chunk = gallery.slice(at, at + CHUNK);
    const { data: gt, width: kg } = columnsBatch(
      chunk.map((g) => ({ rows: g.desc, count: g.count })),
      XFEAT_DIM,
    );
    const res = await session.run({
      q: new ort.Tensor('float32', q.desc, [1, q.count, XFEAT_DIM]),
      gt: new ort.Tensor('float32', gt, [chunk.length, XFEAT_DIM, kg]),
    });
    const qBest = res.q_best!.data as BigInt64Array;
    const qSim = res.q_best_sim!.data as Float32Array;
    const gBest = res.g_best!.data as BigInt64Array;
    chunk.forEach((g, b) => {
      const pairs: Array<[number, number]> = [];
      for (let i = 0; i < q.count; i++) {
        const j = Number(qBest[b * q.count + i]);
        if (j < g.count && qSim[b * q.count + i]! >= minCos && Number(gBest[b * kg + j]) === i) pairs.push([i, j]);
      }
      out.push(pairs);
    });
  }
  return out;
}

/** Verifies one pair of XFeat feature sets. */
export async function verifyXFeatPair(q: XFeatFeatures, g: XFeatFeatures, opts: XFeatMatchOptions): Promise<PairEvidence> {
  const pairs = mutualNearest(q, g, opts.minCos);
  return { tentative: pairs.length, inliers: await geometricInliers(q, g, pairs, opts.reprojPx ?? 6) };
}
