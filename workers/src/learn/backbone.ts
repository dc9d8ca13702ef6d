/**
 * Recipe `finetuned-mobilenetv2-v1`: the owner's labelled photos fine-tune a backbone, not just
 * a head on top of it. A linear head over generic features did not move striped coats (nyala-dev:
 * benchmarks/results/README.md, "The learned metric"); the stripes have to be learned inside the network.
 *
 * Training is PyTorch (`training/backbone.py`, Debian's python3-torch), started as a child
 * process on crops this module writes; the service only ever runs the exported ONNX here, with
 * onnxruntime-node. The ONNX bytes are the learned version's params in `learned_models`.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import type { DecodedImage } from '../vision/intake.js';
import { registry } from '../vision/registry.js';

export { BACKBONE_RECIPE } from './store.js';

const SCRIPT = resolve(fileURLToPath(new URL('../../../training/backbone.py', import.meta.url)));
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** Input size and embedding width of a fine-tuned model (kept in its version's report). */
export interface BackboneShape {
  height: number;
  width: number;
  dim: number;
}

/** Settings of one fine-tune run (defaults: the best of the variants tried on nyala-dev, benchmarks/results/backbone-variants.md). */
export interface BackboneOptions {
  epochs?: number;
  height?: number;
  width?: number;
  dim?: number;
  /** First N convolutions kept frozen. */
  freeze?: number;
  /** CosFace margin: how far the true individual's cosine must beat the others in training. */
  margin?: number;
  seed?: number;
  threads?: number;
}

export const BACKBONE_DEFAULTS: Required<BackboneOptions> = {
  epochs: 16,
  height: 192,
  width: 288,
  dim: 256,
  freeze: 8,
  margin: 0.3,
  seed: 1,
  threads: 2,
};

/** Where the trainer's torch trains: `cuda` where its build sees a GPU (a GPU worker). */
export type TrainerDevice = 'cuda' | 'cpu';

/**
 * Defaults for a gallery of `n` photos, on the device that will train.
 * - CPU: about 12,000 crops seen in training whatever the size (16 epochs for nyala-dev's 748, 6
 *   for holstein-dev's 2059), so a larger gallery does not train for proportionally longer.
 * - CUDA: nothing frozen and about 45,000 crops seen (60 epochs for nyala-dev's 748, 22 for
 *   holstein-dev's 2059). On an H200 that variant was the best tried on nyala-dev, ahead of the CPU
 *   recipe and in minutes, where 2 CPU cores would take hours (benchmarks/results/backbone-variants.md;
 *   benchmarks/results/README.md, "Training on a GPU"). The served gate still decides whether it is adopted.
 */
export function backboneDefaultsFor(n: number, device: TrainerDevice = 'cpu'): Required<BackboneOptions> {
  const size = Math.max(1, n);
  if (device === 'cuda') return { ...BACKBONE_DEFAULTS, freeze: 0, epochs: Math.max(8, Math.min(60, Math.round(45_000 / size))) };
  return { ...BACKBONE_DEFAULTS, epochs: Math.max(4, Math.min(16, Math.round(12_000 / size))) };
}

/** The interpreter that trains: TRAIN_PYTHON, else Debian's python3 (where python3-torch installs). */
export function trainPython(): string {
  return process.env.TRAIN_PYTHON ?? '/usr/bin/python3';
}

/**
 * Where this machine would fine-tune: the interpreter imports torch and onnx, and says whether its
 * torch sees a GPU; null when it cannot train at all. Asked afresh each time (a second or two), so
 * a trainer installed while the service runs is found at the next training job.
 */
export async function trainerDevice(): Promise<TrainerDevice | null> {
  const probe = 'import torch, onnx, PIL, numpy; print("cuda" if torch.cuda.is_available() else "cpu")';
  const r = await run(trainPython(), ['-c', probe]).catch(() => null);
  if (r?.code !== 0) return null;
  return r.stdout.trim().split('\n').pop() === 'cuda' ? 'cuda' : 'cpu';
}

/** Whether this machine can fine-tune: the interpreter imports torch and onnx. */
export async function canTrainBackbone(): Promise<boolean> {
  return (await trainerDevice()) !== null;
}

/** A fine-tuned model loaded for embedding. */
export class OwnerBackbone {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly shape: BackboneShape,
  ) {}

  static async fromBytes(bytes: Uint8Array, shape: BackboneShape): Promise<OwnerBackbone> {
    const threads = Number(process.env.MARKLESS_ORT_THREADS ?? 1);
    const session = await ort.InferenceSession.create(bytes, { executionProviders: ['cpu'], intraOpNumThreads: threads });
    return new OwnerBackbone(session, shape);
  }

  /** L2-normalised embeddings of subject crops (already cropped), in batches. */
  async embed(images: readonly DecodedImage[], batch = 16): Promise<Float32Array[]> {
    const { height: h, width: w, dim } = this.shape;
    const out: Float32Array[] = [];
    for (let k = 0; k < images.length; k += batch) {
      const part = images.slice(k, k + batch);
      const data = new Float32Array(part.length * 3 * h * w);
      for (let b = 0; b < part.length; b++) data.set(await toTensor(part[b]!, h, w), b * 3 * h * w);
      const res = await this.session.run({ image: new ort.Tensor('float32', data, [part.length, 3, h, w]) });
      const flat = res.embedding!.data as Float32Array;
      for (let b = 0; b < part.length; b++) out.push(Float32Array.from(flat.subarray(b * dim, (b + 1) * dim)));
    }
    return out;
  }
}

/** Stretches a crop to the model's input and normalises it as ImageNet models expect (NCHW). */
async function toTensor(img: DecodedImage, h: number, w: number): Promise<Float32Array> {
  const rgb = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(w, h, { fit: 'fill' })
    .raw()
    .toBuffer();
  const t = new Float32Array(3 * h * w);
  for (let i = 0; i < h * w; i++) {
    for (let c = 0; c < 3; c++) t[c * h * w + i] = (rgb[i * 3 + c]! / 255 - MEAN[c]!) / STD[c]!;
  }
  return t;
}

/** Writes a crop as the PNG the trainer reads, at 1.25× the input size so augmentation has room. */
export async function writeCrop(dir: string, name: string, img: DecodedImage, opts: BackboneOptions = {}): Promise<string> {
  const o = { ...BACKBONE_DEFAULTS, ...opts };
  const file = join(dir, `${name}.png`);
  await mkdir(dir, { recursive: true });
  await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(Math.round(o.width * 1.25), Math.round(o.height * 1.25), { fit: 'fill' })
    .png({ compressionLevel: 1 })
    .toFile(file);
  return file;
}

export interface TrainedBackbone {
  onnx: Uint8Array;
  shape: BackboneShape;
  /** What the trainer printed: losses, timings, its own top-1 on `eval`. */
  log: Record<string, unknown>;
  /**
   * The settings it trained with, defaults resolved: a second run given these exactly trains the
   * same recipe (the defaults scale epochs with the photo count, so left to them a run on more
   * photos would train for fewer epochs).
   */
  options: Required<BackboneOptions>;
}

/**
 * Fine-tunes the registry's trainable backbone on crop files (from `writeCrop`) with their
 * labels. `evalItems` are never trained on; the trainer embeds them once as a check.
 * @throws Error with the trainer's last output when it fails.
 */
export async function trainBackbone(
  dir: string,
  items: readonly { file: string; label: string }[],
  evalItems: readonly { file: string; label: string }[],
  opts: BackboneOptions = {},
): Promise<TrainedBackbone> {
  // The recipe follows the device the trainer will use, and the trainer is told that device.
  const device = (await trainerDevice()) ?? 'cpu';
  const o = { ...backboneDefaultsFor(items.length, device), ...opts };
  const base = registry().pick('trainable-backbone', 'animal');
  if (!base) throw new Error('no trainable-backbone model in the registry');
  const spec = join(dir, 'crops.json');
  const out = join(dir, 'candidate.onnx');
  await writeFile(
    spec,
    JSON.stringify({ items: items.map((x) => ({ ...x, box: null })), eval: evalItems.map((x) => ({ ...x, box: null })) }),
  );
  const args = [
    SCRIPT,
    '--base',
    join(base.dir, base.file),
    '--data',
    spec,
    '--out',
    out,
    '--epochs',
    String(o.epochs),
    '--height',
    String(o.height),
    '--width',
    String(o.width),
    '--dim',
    String(o.dim),
    '--freeze',
    String(o.freeze),
    '--margin',
    String(o.margin),
    '--seed',
    String(o.seed),
    '--threads',
    String(o.threads),
    '--device',
    device,
  ];
  const r = await run(trainPython(), args);
  if (r.code !== 0) throw new Error(`backbone training failed (exit ${r.code}): ${r.stderr.slice(-800)}`);
  const last = r.stdout.trim().split('\n').pop() ?? '{}';
  return {
    onnx: new Uint8Array(await readFile(out)),
    shape: { height: o.height, width: o.width, dim: o.dim },
    log: JSON.parse(last) as Record<string, unknown>,
    options: o,
  };
}

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const p = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OMP_NUM_THREADS: process.env.OMP_NUM_THREADS ?? '2' },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
    p.stdout.on('error', () => {});
    p.stderr.on('error', () => {});
    p.on('error', fail);
    p.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}
