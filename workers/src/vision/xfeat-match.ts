/**
 * Matching XFeat features of one query/gallery pair: mutual nearest
 * neighbours by cosine similarity above a floor (XFeat's own matcher), then
 * the same USAC homography verification as AKAZE; the inliers are the
 * evidence.
 */
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
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
 * verification of a whole shortlist inside the latency budget.
 */
function buildMnnGraph(): Uint8Array {
  const { onnx } = onnxProto;
  const F = onnx.TensorProto.DataType.FLOAT;
  const I = onnx.TensorProto.DataType.INT64;
  const int = (name: string, v: number) => ({ name, type: onnx.AttributeProto.AttributeType.INT, i: v });
  const dims = (d: (string | number)[]) => ({ dim: d.map((x) => (typeof x === 'number' ? { dimValue: x } : { dimParam: x })) });
  const io = (name: string, t: number, d: (string | number)[]) => ({ name, type: { tensorType: { elemType: t, shape: dims(d) } } });
  const n = (op: string, input: string[], output: string, attribute: object[] = []) => ({
    opType: op,
    input,
    output: [output],
    name: output,
    attribute,
  });
  const model = {
    irVersion: 7,
    producerName: 'markless/workers/src/vision/xfeat-match.ts',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'mutual-nn',
      node: [
        n('MatMul', ['q', 'gt'], 'sim'),
        n('ArgMax', ['sim'], 'q_best', [int('axis', 2), int('keepdims', 0)]),
        n('ReduceMax', ['sim'], 'q_best_sim', [
          { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [2] },
          int('keepdims', 0),
        ]),
        n('ArgMax', ['sim'], 'g_best', [int('axis', 1), int('keepdims', 0)]),
      ],
      input: [io('q', F, [1, 'KQ', XFEAT_DIM]), io('gt', F, ['N', XFEAT_DIM, 'KG'])],
      output: [io('q_best', I, ['N', 'KQ']), io('q_best_sim', F, ['N', 'KQ']), io('g_best', I, ['N', 'KG'])],
    },
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model as onnxProto.onnx.IModelProto)).finish();
}

let mnnSession: Promise<ort.InferenceSession> | undefined;

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
  mnnSession ??= ort.InferenceSession.create(buildMnnGraph(), {
    executionProviders: ['cpu'],
    intraOpNumThreads: Number(process.env.MARKLESS_ORT_THREADS ?? 1),
  });
  const session = await mnnSession;
  const out: Array<Array<[number, number]>> = [];
  const CHUNK = 16;
  for (let at = 0; at < gallery.length; at += CHUNK) {
    const chunk = gallery.slice(at, at + CHUNK);
    const kg = Math.max(1, ...chunk.map((g) => g.count));
    const gt = new Float32Array(chunk.length * XFEAT_DIM * kg);
    chunk.forEach((g, b) => {
      const base = b * XFEAT_DIM * kg;
      for (let j = 0; j < g.count; j++) for (let c = 0; c < XFEAT_DIM; c++) gt[base + c * kg + j] = g.desc[j * XFEAT_DIM + c]!;
    });
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
