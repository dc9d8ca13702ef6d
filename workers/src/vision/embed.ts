/**
 * Global embedding with onnxruntime-node. Tries the CUDA execution provider
 * first and falls back to the CPU one; `embedderInfo()` says which is active.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import type { DecodedImage } from './intake.js';

/** The subset of models/manifest.json the runtime relies on. */
export interface ModelManifest {
  name: string;
  version: string;
  file: string;
  sha256: string;
  input: { name: string; shape: (number | string)[] };
  output: { name: string; shape: (number | string)[] };
}

/** Identity of the model that produced an embedding; stored with every embedding row. */
export interface ModelRef {
  name: string;
  version: string;
}

export type Provider = 'cuda' | 'cpu';

export interface EmbedderLoadOptions {
  /** `auto` (default): CUDA when its provider library is present, else CPU. `cpu`: CPU only. */
  provider?: 'auto' | 'cpu';
}

const here = dirname(fileURLToPath(import.meta.url));
/** Default models folder (repo root `models/`); override with MARKLESS_MODELS_DIR. */
export const MODELS_DIR = resolve(process.env.MARKLESS_MODELS_DIR ?? join(here, '../../../models'));

export function readManifest(dir = MODELS_DIR): ModelManifest {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ModelManifest;
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
    return Number(this.manifest.output.shape[1]);
  }

  /** Input side length (square). */
  get side(): number {
    return Number(this.manifest.input.shape[2]);
  }

  static async load(dir = MODELS_DIR, opts: EmbedderLoadOptions = {}): Promise<Embedder> {
    const manifest = readManifest(dir);
    const bytes = readFileSync(join(dir, manifest.file));
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== manifest.sha256) throw new Error(`model ${manifest.file} sha256 ${sha} does not match manifest ${manifest.sha256}`);
    if (opts.provider !== 'cpu' && cudaLibraryPresent()) {
      try {
        const session = await ort.InferenceSession.create(bytes, { executionProviders: ['cuda'] });
        return new Embedder(session, manifest, 'cuda');
      } catch (err) {
        // The library is there but the session failed (no GPU, a missing CUDA or cuDNN library):
        // the CPU provider is the documented fallback, and the reason must not be lost.
        process.emitWarning(`CUDA execution provider unavailable, using CPU: ${(err as Error).message}`, 'MarklessEmbedder');
      }
    }
    const session = await ort.InferenceSession.create(bytes, {
      executionProviders: ['cpu'],
      intraOpNumThreads: Number(process.env.MARKLESS_ORT_THREADS ?? 1),
    });
    return new Embedder(session, manifest, 'cpu');
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
    const feeds = { [this.manifest.input.name]: new ort.Tensor('float32', input, [images.length, 3, s, s]) };
    const out = await this.session.run(feeds);
    const t = out[this.manifest.output.name]!;
    const data = t.data as Float32Array;
    const dim = data.length / images.length;
    return images.map((_, n) => Float32Array.from(data.subarray(n * dim, (n + 1) * dim)));
  }
}

/**
 * Whether onnxruntime-node can find its CUDA provider library. A plain install
 * (install script disabled) has none, so trying would only log an error.
 */
function cudaLibraryPresent(): boolean {
  if (process.env.MARKLESS_DISABLE_CUDA === '1') return false;
  try {
    const req = createRequire(import.meta.url);
    const binDir = join(dirname(req.resolve('onnxruntime-node')), '..', 'bin', 'napi-v6', process.platform, process.arch);
    return existsSync(join(binDir, 'libonnxruntime_providers_cuda.so'));
  } catch {
    return false;
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
