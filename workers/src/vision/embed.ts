/**
 * Global embedding with onnxruntime-node, loaded through its entry in the
 * model registry (registry.ts). CUDA execution provider when it can start,
 * else CPU; `embedderInfo()` says which is active.
 */
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import type { DecodedImage } from './intake.js';
import { runChunked } from './fixed-batch.js';
import { BUNDLED_MODELS_DIR, openSession, registry, type LocatedModel, type ModelRef, type Provider } from './registry.js';

export type { ModelRef, Provider } from './registry.js';

/** The registry entry of a global-embedding model. */
export type ModelManifest = LocatedModel;

export interface EmbedderLoadOptions {
  /** `auto` (default): CUDA when its provider library is present, else CPU. `cpu`: CPU only. */
  provider?: 'auto' | 'cpu';
}

/** The bundled models folder; operators add theirs with MODELS_DIR (see registry.ts). */
export const MODELS_DIR = BUNDLED_MODELS_DIR;

/** The registry entry of the global embedding used for `kind` (default: the first for any kind). */
export function readManifest(kind?: string): ModelManifest {
  const entry = registry().pick('global-embedding', kind);
  if (!entry) throw new Error('no global-embedding model in the registry');
  return entry;
}

/** A loaded embedding model. Create once per process with `loadEmbedder()`. */
export class Embedder {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly manifest: ModelManifest,
    /** The execution provider the session runs on. */
    readonly provider: Provider,
  ) {}

  get model(): ModelRef {
    return { name: this.manifest.name, version: this.manifest.version };
  }

  /** Embedding dimension. */
  get dim(): number {
    return Number(this.manifest.outputs[0]!.shape[1]);
  }

  /** Input side length (square). */
  get side(): number {
    return Number(this.manifest.inputs[0]!.shape[2]);
  }

  /** Loads a manifest entry (default: the registry's global embedding); refuses a wrong sha256. */
  static async load(entry: ModelManifest = readManifest(), opts: EmbedderLoadOptions = {}): Promise<Embedder> {
    const { session, provider } = await openSession(entry, { provider: opts.provider });
    return new Embedder(session, entry, provider);
  }

  /** Embeds images; each result is L2-normalised. */
  async embed(images: DecodedImage[]): Promise<Float32Array[]> {
    if (images.length === 0) return [];
    const s = this.side;
    const plane = s * s;
    const input = new Float32Array(images.length * 3 * plane);
    for (let n = 0; n < images.length; n++) {
      const img = images[n]!;
      const px = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
        .resize(s, s, { fit: 'fill' })
        .raw()
        .toBuffer();
      const base = n * 3 * plane;
      for (let i = 0; i < plane; i++) {
        input[base + i] = px[i * 3]! / 255;
        input[base + plane + i] = px[i * 3 + 1]! / 255;
        input[base + 2 * plane + i] = px[i * 3 + 2]! / 255;
      }
    }
    embedObserver?.(images.length);
    const out = await runChunked(this.session, this.provider, this.manifest.inputs[0]!.name, input, [images.length, 3, s, s]);
    const data = out[this.manifest.outputs[0]!.name]!;
    const dim = data.length / images.length;
    return images.map((_, n) => Float32Array.from(data.subarray(n * dim, (n + 1) * dim)));
  }
}

let embedObserver: ((batchSize: number) => void) | null = null;
/** Be told the batch size of every embedding run (the metrics' `markless_embed_batch_size`). */
export function setEmbedObserver(fn: ((batchSize: number) => void) | null): void {
  embedObserver = fn;
}

let shared: Promise<Embedder> | undefined;
/** Process-wide embedder (loaded lazily, once). */
export function loadEmbedder(): Promise<Embedder> {
  shared ??= Embedder.load();
  return shared;
}

/** What the health route shows. */
export async function embedderInfo(): Promise<{ model: ModelRef; provider: Provider }> {
  const e = await loadEmbedder();
  return { model: e.model, provider: e.provider };
}

/** Cosine similarity of two L2-normalised vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
