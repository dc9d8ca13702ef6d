/**
 * Fine-tunes an owner's backbone (backbone.ts) and scores it for the adoption gate.
 *
 * The split: a few whole individuals (strangers) and the last photos of every other individual
 * with two or more are held out (heldOut); the model trains on the rest, plus photos labelled by
 * `identify_verdict` (except a stranger's). Each held-out photo is identified against the training
 * photos (nearest individual by best cosine) in the candidate's space and in the current one (the
 * adopted version, or the base embedding); that global-stage figure is reported, while adoption is
 * decided on the served pipeline (served-gate.ts). The version stored is the very model tested.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { bytesToVector } from '../recognition/bytes.js';
import { cropToBox, type Box } from '../vision/detector.js';
import { PREVIEW_SIDE, type RecognitionEngine } from '../vision/engine.js';
import { decodeImage, downscale, type DecodedImage } from '../vision/intake.js';
import { isolateSubject } from '../vision/subject.js';
import { settingsFor } from '../vision/settings.js';
import { OwnerBackbone, trainBackbone, writeCrop, type BackboneOptions, type BackboneShape } from './backbone.js';
import { dot } from './holdout.js';
import { poolRows } from './pool-rows.js';
import { verdictLabels } from './labelled.js';
import { project } from './metric.js';
import type { LearnedVersion } from './store.js';
import { ownPool } from '../../../shared/src/access/pool-owners.js';

/** One labelled crop on disk, with its vector in the current space when it is an enrolled photo. */
export interface CropSample {
  label: string;
  file: string;
  /** The enrolled image, when it is one. */
  imageId?: string;
  /** Enrolled photos only: their base-model embedding (verdict photos train, never test). */
  base: Float32Array | null;
}

export interface BackboneJudgement {
  adopt: boolean;
  candidateTop1: number;
  currentTop1: number;
  evaluated: number;
  /** Absolute top-1 gain the candidate had to show. */
  minGain: number;
  onnx: Uint8Array;
  shape: BackboneShape;
  log: Record<string, unknown>;
  /** The settings it trained with, defaults resolved (what a retrain on every photo repeats). */
  options: Required<BackboneOptions>;
  /** The candidate's embedding of every enrolled sample (null for verdict photos), in order. */
  vectors: (Float32Array | null)[];
  /** The served space's embedding of the same samples (the adopted version's, else the base one). */
  currentVectors: (Float32Array | null)[];
  /** Indexes of the held-out samples (never trained on). */
  test: Set<number>;
  /** Individuals the candidate never trained on at all (the gate's and the calibration's open set). */
  strangers: Set<string>;
}

/** Reads a crop file back as a decoded image (RGB). */
export async function readCrop(file: string): Promise<DecodedImage> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgb: data, width: info.width, height: info.height };
}

/**
 * The subject crop the backbone sees, from the same view for enrolled and query photos: the
 * photo at PREVIEW_SIDE (a query's `Descriptor.preview`), cut to the stored box grown by the
 * kind's margin, else to a fresh detection (else whole). `box` is in pixels of the photo as
 * decoded, `fullWidth` wide.
 */
export async function subjectCrop(img: DecodedImage, kind: Kind, box: Box | null, fullWidth = img.width): Promise<DecodedImage> {
  const s = settingsFor(kind);
  const view = await downscale(img, PREVIEW_SIDE);
  if (box) {
    const k = view.width / fullWidth;
    return (await cropToBox(view, { x: box.x * k, y: box.y * k, w: box.w * k, h: box.h * k }, { margin: s.subjectMargin })).image;
  }
  return (await isolateSubject(view, { ...s, subject: 'crop' })).image;
}

/** Most photos held out of one individual. */
export const HELD_OUT_PER_INDIVIDUAL = 4;

/** Whole individuals kept out of training: a fifth of the herd, 2 to 8, once it has 5 or more. */
export const STRANGERS = { share: 0.2, min: 2, max: 8, fromIndividuals: 5 } as const;

/**
 * Individuals the candidate never trains on: they stand for the animals an owner has not enrolled
 * yet. A backbone fine-tuned on a herd maps any cow near one it was trained on, so hiding a
 * *trained* individual is no test of the open set: on a 7-cow herd, calibration fitted that way
 * answered `match` for half the never-enrolled cows (benchmarks/results/herd-learning-*.json).
 * A fixed choice (by a hash of the id), the same on every run of the same herd.
 */
export function strangers(samples: readonly CropSample[]): Set<string> {
  const labels = [...new Set(samples.filter((s) => s.base).map((s) => s.label))];
  if (labels.length < STRANGERS.fromIndividuals) return new Set();
  const k = Math.min(STRANGERS.max, Math.max(STRANGERS.min, Math.round(labels.length * STRANGERS.share)));
  const key = (l: string) => createHash('sha1').update(l).digest('hex');
  return new Set(labels.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).slice(0, k));
}

/**
 * Which samples are held out (a fixed choice): every enrolled photo of the strangers, and of every
 * other individual with two or more enrolled photos its last third, at least one and at most
 * HELD_OUT_PER_INDIVIDUAL. They test the candidate, and after adoption they are the only photos
 * the owner's calibration may be fitted on (the model has seen the rest): with one per individual,
 * a 68-cow herd gave 136 calibration queries where 299 are needed to vouch for 1%, so the kind's
 * defaults served instead.
 */
export function heldOut(samples: readonly CropSample[], away: ReadonlySet<string> = strangers(samples)): Set<number> {
  const byLabel = new Map<string, number[]>();
  samples.forEach((s, i) => {
    if (s.base) byLabel.set(s.label, [...(byLabel.get(s.label) ?? []), i]);
  });
  const out = new Set<number>();
  for (const [label, idx] of byLabel) {
    if (away.has(label)) {
      for (const i of idx) out.add(i);
      continue;
    }
    if (idx.length < 2) continue;
    const n = Math.min(HELD_OUT_PER_INDIVIDUAL, Math.max(1, Math.floor(idx.length / 3)));
    for (const i of idx.slice(-n)) out.add(i);
  }
  return out;
}

/** Top-1 of each held-out photo against the enrolled training photos, nearest individual by best cosine. */
export function heldOutTop1(
  vectors: readonly (Float32Array | null)[],
  labels: readonly string[],
  test: ReadonlySet<number>,
): { evaluated: number; top1: number } {
  let hits = 0;
  for (const i of test) {
    let best = -Infinity;
    let bestLabel = '';
    vectors.forEach((v, j) => {
      if (!v || test.has(j)) return;
      const s = dot(v, vectors[i]!);
      if (s > best) [best, bestLabel] = [s, labels[j]!];
    });
    if (bestLabel === labels[i]) hits++;
  }
  return { evaluated: test.size, top1: test.size ? hits / test.size : 0 };
}

/** Embeddings of crop files with a backbone, in order. */
export async function embedFiles(model: OwnerBackbone, files: readonly string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let k = 0; k < files.length; k += 16) out.push(...(await model.embed(await Promise.all(files.slice(k, k + 16).map(readCrop)))));
  return out;
}

/** Vectors of the enrolled samples in the current space: the adopted version's, else the base embedding. */
async function currentVectors(samples: readonly CropSample[], current: LearnedVersion | null): Promise<(Float32Array | null)[]> {
  if (current?.backbone) {
    const model = await OwnerBackbone.fromBytes(current.backbone, current.report.shape as BackboneShape);
    const idx = samples.flatMap((s, i) => (s.base ? [i] : []));
    const vecs = await embedFiles(
      model,
      idx.map((i) => samples[i]!.file),
    );
    const out: (Float32Array | null)[] = samples.map(() => null);
    idx.forEach((i, k) => (out[i] = vecs[k]!));
    return out;
  }
  return samples.map((s) => (s.base ? (current?.metric ? project(current.metric, s.base) : s.base) : null));
}

/** Trains on all but the held-out photos, and scores candidate and current on them. */
export async function judgeBackbone(
  dir: string,
  samples: readonly CropSample[],
  current: LearnedVersion | null,
  opts: BackboneOptions & { minGain?: number } = {},
): Promise<BackboneJudgement> {
  const away = strangers(samples);
  const test = heldOut(samples, away);
  // A stranger's verdict photos are kept out too: it must be a stranger to the model.
  const train = samples.filter((s, i) => !test.has(i) && !away.has(s.label));
  const trained = await trainBackbone(
    dir,
    train,
    [...test].map((i) => samples[i]!),
    opts,
  );
  const model = await OwnerBackbone.fromBytes(trained.onnx, trained.shape);
  const enrolled = samples.flatMap((s, i) => (s.base ? [i] : []));
  const vecs = await embedFiles(
    model,
    enrolled.map((i) => samples[i]!.file),
  );
  const candidate: (Float32Array | null)[] = samples.map(() => null);
  enrolled.forEach((i, k) => (candidate[i] = vecs[k]!));
  const labels = samples.map((s) => s.label);
  const cand = heldOutTop1(candidate, labels, test);
  const curVectors = await currentVectors(samples, current);
  const cur = heldOutTop1(curVectors, labels, test);
  const minGain = opts.minGain ?? 0.01;
  return {
    adopt: cand.evaluated > 0 && cand.top1 >= cur.top1 + minGain,
    candidateTop1: cand.top1,
    currentTop1: cur.top1,
    evaluated: cand.evaluated,
    minGain,
    onnx: trained.onnx,
    shape: trained.shape,
    log: trained.log,
    options: trained.options,
    vectors: candidate,
    currentVectors: curVectors,
    test,
    strangers: away,
  };
}

/** A model trained on every sample, and its embedding of the enrolled ones (null for verdict photos), in sample order. */
export interface RetrainedBackbone {
  onnx: Uint8Array;
  shape: BackboneShape;
  log: Record<string, unknown>;
  vectors: (Float32Array | null)[];
}

/**
 * Trains again on every sample, nothing held out, with `options` as the judged run resolved
 * them: the same recipe, given every photo (learn/keep-learned.ts decides whether it serves).
 */
export async function retrainBackbone(
  dir: string,
  samples: readonly CropSample[],
  options: Required<BackboneOptions>,
): Promise<RetrainedBackbone> {
  const trained = await trainBackbone(dir, samples, [], options);
  const model = await OwnerBackbone.fromBytes(trained.onnx, trained.shape);
  const enrolled = samples.flatMap((s, i) => (s.base ? [i] : []));
  const vecs = await embedFiles(
    model,
    enrolled.map((i) => samples[i]!.file),
  );
  const vectors: (Float32Array | null)[] = samples.map(() => null);
  enrolled.forEach((i, k) => (vectors[i] = vecs[k]!));
  return { onnx: trained.onnx, shape: trained.shape, log: trained.log, vectors };
}

/** Writes the owner's labelled crops (enrolled photos, then verdict-labelled queries) to `dir`. */
export async function ownerCrops(
  c: Container,
  engine: RecognitionEngine,
  owner: OwnerScope,
  kind: Kind,
  dir: string,
  opts: BackboneOptions = {},
): Promise<CropSample[]> {
  const out: CropSample[] = [];
  const enrolled = await poolRows(c, engine, ownPool(owner), kind);
  for (const r of enrolled) {
    const bytes = await c.blobs.get(r.cid);
    if (!bytes) continue;
    const crop = await subjectCrop(await decodeImage(bytes), kind, r.subject?.box ?? null);
    out.push({
      label: r.individual_id,
      imageId: r.image_id,
      base: bytesToVector(r.global),
      file: await writeCrop(dir, `e${out.length}`, crop, opts),
    });
  }
  // Verdict photos train only individuals that also have enrolled photos here.
  const enrolledLabels = new Set(out.map((s) => s.label));
  for (const { label, cids } of await verdictLabels(c, owner, kind)) {
    if (!enrolledLabels.has(label)) continue;
    for (const cid of cids) {
      const bytes = await c.blobs.get(cid);
      const img = bytes ? await decodeImage(bytes).catch(() => null) : null;
      if (img) out.push({ label, base: null, file: await writeCrop(dir, `v${out.length}`, await subjectCrop(img, kind, null), opts) });
    }
  }
  return out;
}

/** A judged fine-tune run: its crops (still on disk in `dir`), and the judgement (null: no samples). */
export interface FineTuneRun {
  dir: string;
  samples: CropSample[];
  enrolled: number;
  judgement: BackboneJudgement | null;
}

/**
 * The whole run for one owner in a scratch folder that is always removed; `then` decides on it
 * while the crops are still there (a retrain after adoption trains on them again).
 */
export async function fineTuneOwner<T>(
  c: Container,
  engine: RecognitionEngine,
  owner: OwnerScope,
  kind: Kind,
  current: LearnedVersion | null,
  opts: BackboneOptions & { minGain?: number },
  then: (run: FineTuneRun) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'markless-train-'));
  try {
    const samples = await ownerCrops(c, engine, owner, kind, dir, opts);
    const judgement = samples.length ? await judgeBackbone(dir, samples, current, opts) : null;
    return await then({ dir, samples, enrolled: samples.filter((s) => s.base).length, judgement });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
