/**
 * Generated labelled embeddings for tests: each individual has a signature in a few dimensions,
 * buried under shared nuisance (scene, light) that is much stronger in the others. Raw cosine
 * mostly sees the nuisance; a learned metric can find the signature.
 */
import { mulberry32 as seeded } from '../vision/testing/synthetic.js';
import type { Labelled } from './metric.js';

export interface GeneratedOptions {
  individuals: number;
  photosEach: number;
  dim?: number;
  /** Dimensions that carry identity. */
  signalDims?: number;
  /** Nuisance strength relative to the identity signal. */
  nuisance?: number;
  seed?: number;
}

export function generatedGallery(o: GeneratedOptions): Labelled[] {
  const dim = o.dim ?? 64;
  const signalDims = o.signalDims ?? 8;
  const rand = seeded(o.seed ?? 7);
  const g = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const out: Labelled[] = [];
  for (let p = 0; p < o.individuals; p++) {
    const signature = Array.from({ length: signalDims }, g);
    for (let k = 0; k < o.photosEach; k++) {
      const v = new Float32Array(dim);
      for (let d = 0; d < dim; d++) v[d] = d < signalDims ? signature[d]! + 0.3 * g() : (o.nuisance ?? 0) * g();
      const n = Math.hypot(...v) || 1;
      out.push({ label: `ind-${p}`, vector: v.map((x) => x / n) });
    }
  }
  return out;
}
