/**
 * A metric learned from one owner's labelled photos: `z = W (x − mean)`, L2-normalised, compared
 * by cosine. It is trained with a normalised-softmax loss against one learned proxy per
 * individual (Proxy-NCA / NormSoftmax, Movshovitz-Attias et al. 2017; Zhai and Wu 2018), which
 * pulls photos of one individual together and pushes individuals apart, in pure TypeScript, so
 * the training job needs nothing beyond the worker itself.
 */
import { mulberry32 as seeded } from '../vision/testing/synthetic.js';

/** One labelled global embedding: a photo and the individual it shows. */
export interface Labelled {
  vector: Float32Array;
  label: string;
}

/** A learned linear metric. `weights` is dimOut × dimIn, row-major. */
export interface LinearMetric {
  dimIn: number;
  dimOut: number;
  mean: Float32Array;
  weights: Float32Array;
}

export interface TrainOptions {
  /** Output dimension (default min(128, dimIn)). */
  dimOut?: number;
  epochs?: number;
  learningRate?: number;
  /** Softmax temperature (inverse): logits are `scale · cos`. */
  scale?: number;
  batch?: number;
  seed?: number;
}

/** Projects and L2-normalises one vector. */
export function project(m: LinearMetric, v: Float32Array): Float32Array {
  const out = new Float32Array(m.dimOut);
  let norm = 0;
  for (let r = 0; r < m.dimOut; r++) {
    let s = 0;
    const row = r * m.dimIn;
    for (let i = 0; i < m.dimIn; i++) s += m.weights[row + i]! * (v[i]! - m.mean[i]!);
    out[r] = s;
    norm += s * s;
  }
  return normalise(out, Math.sqrt(norm));
}

function normalise(v: Float32Array, norm = Math.hypot(...v)): Float32Array {
  const n = norm || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
}

/** Adam state for one parameter block. */
class Adam {
  private readonly m: Float32Array;
  private readonly v: Float32Array;
  private t = 0;
  constructor(
    private readonly p: Float32Array,
    private readonly lr: number,
  ) {
    this.m = new Float32Array(p.length);
    this.v = new Float32Array(p.length);
  }
  step(g: Float32Array): void {
    this.t++;
    const b1 = 0.9,
      b2 = 0.999;
    const c1 = 1 - b1 ** this.t,
      c2 = 1 - b2 ** this.t;
    for (let i = 0; i < this.p.length; i++) {
      this.m[i] = b1 * this.m[i]! + (1 - b1) * g[i]!;
      this.v[i] = b2 * this.v[i]! + (1 - b2) * g[i]! * g[i]!;
      this.p[i]! -= (this.lr * (this.m[i]! / c1)) / (Math.sqrt(this.v[i]! / c2) + 1e-8);
    }
  }
}

function meanOf(samples: readonly Labelled[], dim: number): Float32Array {
  const mean = new Float32Array(dim);
  for (const s of samples) for (let i = 0; i < dim; i++) mean[i]! += s.vector[i]! / samples.length;
  return mean;
}

/**
 * Trains a metric on labelled embeddings. Needs at least two individuals; individuals with one
 * photo still act as negatives (their proxy is pushed away from everyone else's photos).
 * Yields to the event loop after every batch: in the embedded mode the API shares the process.
 */
export async function trainMetric(samples: readonly Labelled[], opts: TrainOptions = {}): Promise<LinearMetric> {
  const dimIn = samples[0]?.vector.length ?? 0;
  const labels = [...new Set(samples.map((s) => s.label))].sort();
  if (dimIn === 0 || labels.length < 2) throw new Error('training needs labelled photos of at least two individuals');
  const dimOut = Math.min(opts.dimOut ?? 128, dimIn);
  const epochs = opts.epochs ?? 40;
  const scale = opts.scale ?? 16;
  const batch = opts.batch ?? 32;
  const rand = seeded(opts.seed ?? 1);
  const mean = meanOf(samples, dimIn);
  const weights = new Float32Array(dimOut * dimIn).map(() => gaussian(rand) / Math.sqrt(dimIn));
  const m: LinearMetric = { dimIn, dimOut, mean, weights };
  const classOf = samples.map((s) => labels.indexOf(s.label));
  const proxies = initialProxies(m, samples, classOf, labels.length);
  const optW = new Adam(weights, opts.learningRate ?? 0.01);
  const optP = new Adam(proxies, opts.learningRate ?? 0.01);
  const order = samples.map((_, i) => i);
  for (let e = 0; e < epochs; e++) {
    shuffle(order, rand);
    for (let b = 0; b < order.length; b += batch) {
      const { gW, gP } = gradients(m, proxies, labels.length, samples, classOf, order.slice(b, b + batch), scale);
      optW.step(gW);
      optP.step(gP);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return m;
}

function shuffle(a: number[], rand: () => number): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
}

/** Each proxy starts at the mean projected photo of its individual. */
function initialProxies(m: LinearMetric, samples: readonly Labelled[], classOf: number[], nClass: number): Float32Array {
  const p = new Float32Array(nClass * m.dimOut);
  samples.forEach((s, i) => {
    const z = project(m, s.vector);
    for (let k = 0; k < m.dimOut; k++) p[classOf[i]! * m.dimOut + k]! += z[k]!;
  });
  for (let c = 0; c < nClass; c++) normalise(p.subarray(c * m.dimOut, (c + 1) * m.dimOut));
  return p;
}

/** Mean gradient of the normalised-softmax loss over one batch, for W and the proxies. */
function gradients(
  m: LinearMetric,
  proxies: Float32Array,
  nClass: number,
  samples: readonly Labelled[],
  classOf: number[],
  idx: number[],
  scale: number,
) {
  const { dimIn, dimOut } = m;
  const gW = new Float32Array(dimOut * dimIn);
  const gP = new Float32Array(proxies.length);
  const pn = new Float32Array(proxies.length);
  const pNorm = new Float32Array(nClass);
  for (let c = 0; c < nClass; c++) {
    const row = proxies.subarray(c * dimOut, (c + 1) * dimOut);
    pNorm[c] = Math.hypot(...row) || 1;
    for (let k = 0; k < dimOut; k++) pn[c * dimOut + k] = row[k]! / pNorm[c]!;
  }
  const gPn = new Float32Array(proxies.length);
  for (const i of idx) {
    const x = samples[i]!.vector;
    const xc = new Float32Array(dimIn);
    for (let d = 0; d < dimIn; d++) xc[d] = x[d]! - m.mean[d]!;
    const z = new Float32Array(dimOut);
    for (let r = 0; r < dimOut; r++) {
      let s = 0;
      for (let d = 0; d < dimIn; d++) s += m.weights[r * dimIn + d]! * xc[d]!;
      z[r] = s;
    }
    const zNorm = Math.hypot(...z) || 1;
    const n = z.map((v) => v / zNorm);
    const logits = new Float64Array(nClass);
    let max = -Infinity;
    for (let c = 0; c < nClass; c++) {
      let s = 0;
      for (let k = 0; k < dimOut; k++) s += n[k]! * pn[c * dimOut + k]!;
      logits[c] = scale * s;
      max = Math.max(max, logits[c]!);
    }
    let sum = 0;
    for (let c = 0; c < nClass; c++) sum += logits[c] = Math.exp(logits[c]! - max);
    // dL/dlogit = softmax − onehot; dL/dn = scale Σ g_c p_c; dL/dp_c = scale g_c n.
    const gn = new Float32Array(dimOut);
    for (let c = 0; c < nClass; c++) {
      const g = ((logits[c]! / sum - (c === classOf[i] ? 1 : 0)) * scale) / idx.length;
      if (Math.abs(g) < 1e-7) continue;
      for (let k = 0; k < dimOut; k++) {
        gn[k]! += g * pn[c * dimOut + k]!;
        gPn[c * dimOut + k]! += g * n[k]!;
      }
    }
    // Through the normalisation: dL/dz = (gn − n (n·gn)) / |z|; dL/dW = dL/dz ⊗ xc.
    let dot = 0;
    for (let k = 0; k < dimOut; k++) dot += n[k]! * gn[k]!;
    for (let r = 0; r < dimOut; r++) {
      const gz = (gn[r]! - n[r]! * dot) / zNorm;
      if (gz === 0) continue;
      for (let d = 0; d < dimIn; d++) gW[r * dimIn + d]! += gz * xc[d]!;
    }
  }
  for (let c = 0; c < nClass; c++) {
    let dot = 0;
    for (let k = 0; k < dimOut; k++) dot += pn[c * dimOut + k]! * gPn[c * dimOut + k]!;
    for (let k = 0; k < dimOut; k++) gP[c * dimOut + k] = (gPn[c * dimOut + k]! - pn[c * dimOut + k]! * dot) / pNorm[c]!;
  }
  return { gW, gP };
}

/** Serialises a metric to bytes (dims, mean, weights as little-endian float32) for storage. */
export function metricToBytes(m: LinearMetric): Uint8Array {
  const out = new Float32Array(2 + m.dimIn + m.weights.length);
  out[0] = m.dimIn;
  out[1] = m.dimOut;
  out.set(m.mean, 2);
  out.set(m.weights, 2 + m.dimIn);
  return new Uint8Array(out.buffer);
}

export function metricFromBytes(bytes: Uint8Array): LinearMetric {
  const f = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const dimIn = f[0]!,
    dimOut = f[1]!;
  if (f.length !== 2 + dimIn + dimIn * dimOut) throw new Error('stored metric has the wrong size');
  return { dimIn, dimOut, mean: f.slice(2, 2 + dimIn), weights: f.slice(2 + dimIn) };
}
