/**
 * The model registry: `models/manifest.json` lists every model file the
 * engine may run, as data. Each entry names the model, its version, licence,
 * source, sha256, inputs, outputs, preprocessing and the kinds that use it.
 * The engine loads models only through an entry, and refuses a file whose
 * sha256 differs from its entry.
 *
 * Operators add their own ONNX files (a re-identification model they licence
 * themselves, say) by pointing `MODELS_DIR` at a folder holding the files and
 * a `manifest.json` in the same schema. Its entries are read after the
 * bundled ones and win when both offer the same role for a kind.
 *
 * ```ts
 * const reg = loadRegistry();                          // bundled + MODELS_DIR
 * const entry = reg.pick('detector', 'animal');        // or reg.get('yolox-nano-coco')
 * const { session, provider } = await openSession(entry); // sha256-checked, CUDA when present
 * ```
 * Errors: `ModelIntegrityError` (sha256 mismatch or missing file; never retry),
 * `Error` for a malformed manifest or an unknown model.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';

const here = dirname(fileURLToPath(import.meta.url));
/** The bundled models folder (repository root `models/`). */
export const BUNDLED_MODELS_DIR = resolve(join(here, '../../../models'));

/**
 * What a model does in the pipeline. A 'trainable-backbone' is never run as it is: it is the
 * start point that `npm run train -- --recipe backbone` fine-tunes into each owner's own model.
 */
export const MODEL_ROLES = ['global-embedding', 'detector', 'local-features', 'matcher', 'projection-head', 'trainable-backbone'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

const tensorSpec = z
  .object({
    name: z.string().min(1),
    shape: z.array(z.union([z.number(), z.string()])),
    dtype: z.string().default('float32'),
  })
  .passthrough();

/** One manifest entry. Unknown extra fields (recipe notes, block weights) are kept. */
export const modelEntrySchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
    version: z.string().min(1),
    role: z.enum(MODEL_ROLES),
    file: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int().positive().optional(),
    licence: z.string().min(1),
    /** Licence text beside the file, relative to the manifest's folder. */
    licence_file: z.string().optional(),
    source: z
      .object({ repository: z.string(), path: z.string().optional(), commit: z.string().optional(), note: z.string().optional() })
      .passthrough(),
    inputs: z.array(tensorSpec).min(1),
    outputs: z.array(tensorSpec).min(1),
    preprocessing: z.record(z.string(), z.unknown()),
    kinds: z.array(z.enum(['tree', 'fruit', 'animal'])),
  })
  .passthrough();

export type ModelEntry = z.infer<typeof modelEntrySchema>;

/** The manifest file: a schema number and the entries. */
export const manifestSchema = z.object({ schema: z.literal(2), models: z.array(modelEntrySchema) });
export type Manifest = z.infer<typeof manifestSchema>;

/** The identity of a model, stored with every descriptor it contributed to. */
export interface ModelRef {
  name: string;
  version: string;
}

/** An entry with the folder its file lives in. */
export interface LocatedModel extends ModelEntry {
  dir: string;
  /** `bundled` (this repository) or `operator` (MODELS_DIR). */
  origin: 'bundled' | 'operator';
}

/** The file is missing or its bytes are not the ones the manifest names. Never retry. */
export class ModelIntegrityError extends Error {
  readonly code = 'model_integrity';
  readonly unrecoverable = true;
  constructor(message: string) {
    super(message);
    this.name = 'ModelIntegrityError';
  }
}

/** Reads and validates one manifest. @throws Error naming the file and the bad fields. */
export function readManifestFile(dir: string): Manifest {
  const path = join(dir, 'manifest.json');
  const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** The bundled entries plus an operator's, looked up by name or by role and kind. */
export class ModelRegistry {
  constructor(readonly entries: readonly LocatedModel[]) {}

  /** The entry named `name` (an operator's wins over a bundled one of the same name). @throws Error when unknown. */
  get(name: string): LocatedModel {
    const hit = [...this.entries].reverse().find((e) => e.name === name);
    if (!hit) throw new Error(`model ${name} is not in the registry`);
    return hit;
  }

  /** The model serving `role` for `kind`: the operator's when offered, else the bundled one; undefined when none. */
  pick(role: ModelRole, kind?: string): LocatedModel | undefined {
    const fits = this.entries.filter((e) => e.role === role && (!kind || (e.kinds as string[]).includes(kind)));
    return fits.find((e) => e.origin === 'operator') ?? fits[0];
  }
}

/**
 * Loads the bundled manifest and, when set, the one in `operatorDir`
 * (default: env `MODELS_DIR`, or the older `MARKLESS_MODELS_DIR`).
 */
export function loadRegistry(opts: { bundledDir?: string; operatorDir?: string | null } = {}): ModelRegistry {
  const bundledDir = opts.bundledDir ?? BUNDLED_MODELS_DIR;
  const opDir = opts.operatorDir === undefined ? process.env.MODELS_DIR || process.env.MARKLESS_MODELS_DIR || null : opts.operatorDir;
  const entries: LocatedModel[] = readManifestFile(bundledDir).models.map((m) => ({ ...m, dir: bundledDir, origin: 'bundled' as const }));
  // MODELS_DIR is also the folder candidate models are registered from (POST /api/admin/models):
  // without a manifest of its own it adds no models and only holds candidates.
  if (opDir && resolve(opDir) !== resolve(bundledDir) && existsSync(join(resolve(opDir), 'manifest.json'))) {
    for (const m of readManifestFile(resolve(opDir)).models) entries.push({ ...m, dir: resolve(opDir), origin: 'operator' });
  }
  return new ModelRegistry(entries);
}

/**
 * The file's bytes, checked against the entry's sha256.
 * @throws ModelIntegrityError when missing or different.
 */
export function readModelBytes(entry: LocatedModel): Buffer {
  const path = join(entry.dir, entry.file);
  if (!existsSync(path)) throw new ModelIntegrityError(`model ${entry.name}@${entry.version}: file ${path} is missing`);
  const bytes = readFileSync(path);
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== entry.sha256) {
    throw new ModelIntegrityError(
      `model ${entry.name}@${entry.version}: ${entry.file} has sha256 ${sha}, the manifest says ${entry.sha256}`,
    );
  }
  return bytes;
}

export type Provider = 'cuda' | 'cpu';

export interface SessionOptions {
  /** `auto` (default): CUDA when its provider library is present, else CPU. `cpu`: CPU only. */
  provider?: 'auto' | 'cpu';
  /** CPU intra-op threads (default env MARKLESS_ORT_THREADS, else 1). */
  threads?: number;
}

/** An ONNX Runtime session for a manifest entry, on CUDA when it can start, else on CPU. */
export async function openSession(
  entry: LocatedModel,
  opts: SessionOptions = {},
): Promise<{ session: ort.InferenceSession; provider: Provider }> {
  return sessionFromBytes(readModelBytes(entry), entry.name, opts);
}

/**
 * A session for model bytes (a manifest entry's, or a graph built in memory), on CUDA when it can
 * start, else on CPU. `label` names it in the fallback warning.
 */
export async function sessionFromBytes(
  bytes: Uint8Array,
  label: string,
  opts: SessionOptions = {},
): Promise<{ session: ort.InferenceSession; provider: Provider }> {
  if (opts.provider !== 'cpu' && cudaLibraryPresent()) {
    try {
      return { session: await ort.InferenceSession.create(bytes, { executionProviders: ['cuda'] }), provider: 'cuda' };
    } catch (err) {
      // The library is there but the session failed (no GPU, a missing CUDA or cuDNN library):
      // the CPU provider is the documented fallback, and the reason must not be lost.
      process.emitWarning(`CUDA execution provider unavailable for ${label}, using CPU: ${(err as Error).message}`, 'MarklessModels');
    }
  }
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['cpu'],
    intraOpNumThreads: opts.threads ?? Number(process.env.MARKLESS_ORT_THREADS ?? 1),
  });
  return { session, provider: 'cpu' };
}

/**
 * Whether onnxruntime-node can find its CUDA provider library. A plain install
 * (install script disabled) has none, so trying would only log an error.
 */
export function cudaLibraryPresent(): boolean {
  if (process.env.MARKLESS_DISABLE_CUDA === '1') return false;
  try {
    const req = createRequire(import.meta.url);
    const binDir = join(dirname(req.resolve('onnxruntime-node')), '..', 'bin', 'napi-v6', process.platform, process.arch);
    return existsSync(join(binDir, 'libonnxruntime_providers_cuda.so'));
  } catch {
    return false;
  }
}

let shared: ModelRegistry | undefined;
/** The process-wide registry (read once). */
export function registry(): ModelRegistry {
  shared ??= loadRegistry();
  return shared;
}
