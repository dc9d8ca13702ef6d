/**
 * Batches of one fixed size on the GPU.
 *
 * ONNX Runtime's CUDA provider pays 0.3–0.9 s each time a session's input shape changes (XFeat on
 * an H200: 3–4 ms a warm run, 937 ms the first run of a shape and 301 ms on going back to a shape
 * it had seen; cuDNN picks its convolution algorithms again), and an engine pool's batches come in
 * every size from 1 to ENGINE_BATCH_SIZE. Run as chunks of `GPU_CHUNK` items, the last one padded
 * with zeros, a model sees one shape per image size. CPU sessions run the batch whole: there a
 * shape change costs nothing and padding would.
 *
 * ```ts
 * const out = await runChunked(session, provider, 'images', input, [n, 3, H, W]);
 * out.feats // Float32Array of n items, in order
 * ```
 */
import * as ort from 'onnxruntime-node';
import type { Provider } from './registry.js';

/** Items per GPU run: a batch of 8 already keeps the GPU busy (2 ms an image, XFeat at 640 px). */
export const GPU_CHUNK = 8;

export async function runChunked(
  session: ort.InferenceSession,
  provider: Provider,
  inputName: string,
  input: Float32Array,
  dims: readonly number[],
  chunk: number = provider === 'cuda' ? GPU_CHUNK : 0,
): Promise<Record<string, Float32Array>> {
  const n = dims[0]!;
  if (chunk <= 0) return outputs(await session.run({ [inputName]: new ort.Tensor('float32', input, [...dims]) }), n, n);
  const per = input.length / n;
  const parts: Record<string, Float32Array[]> = {};
  for (let start = 0; start < n; start += chunk) {
    const take = Math.min(chunk, n - start);
    // The last chunk is padded with zero images, so every run has the same shape.
    const data = new Float32Array(chunk * per);
    data.set(input.subarray(start * per, (start + take) * per));
    const out = outputs(await session.run({ [inputName]: new ort.Tensor('float32', data, [chunk, ...dims.slice(1)]) }), chunk, take);
    for (const [k, v] of Object.entries(out)) (parts[k] ??= []).push(v);
  }
  return Object.fromEntries(Object.entries(parts).map(([k, vs]) => [k, concat(vs)]));
}

/** Each output's first `keep` of `n` items. */
function outputs(res: ort.InferenceSession.ReturnType, n: number, keep: number): Record<string, Float32Array> {
  return Object.fromEntries(
    Object.entries(res).map(([k, t]) => {
      const d = t.data as Float32Array;
      return [k, keep === n ? d : d.subarray(0, (d.length / n) * keep)];
    }),
  );
}

function concat(vs: Float32Array[]): Float32Array {
  if (vs.length === 1) return vs[0]!;
  const out = new Float32Array(vs.reduce((s, v) => s + v.length, 0));
  let at = 0;
  for (const v of vs) {
    out.set(v, at);
    at += v.length;
  }
  return out;
}
