/**
 * `bench:accuracy --learn-from-gallery`: zero-shot figures and figures after learning a metric
 * from the GALLERY ONLY (never from queries), side by side.
 *
 * The benchmark runs twice as child processes with the same arguments: once as given (zero-shot),
 * once with `--learned-pass`, where the enrolled embeddings are used to train the owner metric
 * exactly as the `train_metric` job does (workers/src/learn/train.ts: k-fold leave-one-out on the
 * gallery decides adoption) and every search (calibration and queries) goes through it. With
 * `--cache`, the trained metric is kept there too, keyed by the training data and recipe.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metricFromBytes, metricToBytes, project, type Labelled } from '../workers/src/learn/metric.js';
import { defaultsFor, judge, RECIPE } from '../workers/src/learn/train.js';
import { cosine } from '../workers/src/vision/embed.js';
import { OwnerIndex, type IndexFilter, type IndexHit, type IndexRow } from '../workers/src/index/owner-index.js';
import type { LinearMetric } from '../workers/src/learn/metric.js';
import { BACKBONE_RECIPE, backboneDefaultsFor, OwnerBackbone, trainerDevice, writeCrop } from '../workers/src/learn/backbone.js';
import {
  embedFiles,
  HELD_OUT_PER_INDIVIDUAL,
  judgeBackbone,
  subjectCrop,
  type BackboneJudgement,
  type CropSample,
} from '../workers/src/learn/backbone-train.js';
import { decodeImage } from '../workers/src/vision/intake.js';
import { saveResult } from './machine.js';

/**
 * An owner index in the learned space, as the service uses it (workers/src/learn/gallery.ts):
 * the learned space picks and orders the hits, the similarity reported is the base cosine.
 */
class ProjectedOwnerIndex extends OwnerIndex {
  constructor(
    dir: string,
    modelVersion: string,
    private readonly metric: LinearMetric,
    private readonly base: ReadonlyMap<string, Float32Array>,
  ) {
    super(dir, modelVersion, metric.dimOut);
  }
  override search(vector: Float32Array, k: number, filter: IndexFilter): IndexHit[] {
    return super.search(project(this.metric, vector), k, filter).map((h) => ({ ...h, similarity: cosine(vector, this.base.get(h.id)!) }));
  }
}

/** Training is the slow part: keep the metric and its report, keyed by the exact training data and recipe. */
async function judgeCached(samples: Labelled[], cacheDir: string | undefined) {
  const h = createHash('sha256')
    .update(RECIPE)
    .update(JSON.stringify(defaultsFor(samples.length)));
  for (const s of samples) h.update(s.label).update(new Uint8Array(s.vector.buffer, s.vector.byteOffset, s.vector.byteLength));
  const file = cacheDir ? join(cacheDir, `metric-${h.digest('hex')}`) : '';
  if (file && existsSync(file + '.json')) {
    const r = JSON.parse(readFileSync(file + '.json', 'utf8'));
    return { ...r, metric: metricFromBytes(new Uint8Array(readFileSync(file + '.bin'))) };
  }
  const j = await judge(samples, null);
  if (file) {
    mkdirSync(cacheDir!, { recursive: true });
    writeFileSync(file + '.bin', metricToBytes(j.metric));
    writeFileSync(file + '.json', JSON.stringify({ ...j, metric: undefined }));
  }
  return j;
}

/**
 * Trains on the gallery rows (label = individual) and returns an index searching through the
 * trained metric, with the training report. The metric is used whether or not the adoption
 * rule would adopt it, so the figures show what it does; `adopted` says what the service would do.
 */
export async function learnedIndex(
  rows: readonly IndexRow[],
  dir: string,
  modelVersion: string,
  log: (m: string) => void,
  cacheDir?: string,
) {
  const samples = rows.map((r) => ({ label: r.individualId, vector: r.vector }));
  const j = await judgeCached(samples, cacheDir);
  const report = {
    recipe: RECIPE,
    trained_on: `gallery only: ${samples.length} photos of ${new Set(samples.map((s) => s.label)).size} individuals`,
    adopted: j.adopt,
    loo_top1_base: j.current.top1,
    loo_top1_learned_cv: j.candidate.top1,
    loo_evaluated: j.candidate.evaluated,
    train_ms: Math.round(j.ms),
  };
  log(`learned metric: ${JSON.stringify(report)}`);
  const index = new ProjectedOwnerIndex(dir, `${modelVersion}+learned`, j.metric, new Map(rows.map((r) => [r.id, r.vector])));
  index.rebuild(rows.map((r) => ({ ...r, vector: project(j.metric, r.vector) })));
  return { index, report };
}

const FIGURES = [
  'top1',
  'top5',
  'global_stage_top1',
  'auc',
  'accept_at_far1',
  'false_match_rate',
  'match_rate',
  'uncertain_rate',
  'no_match_rate',
  'shortlist_recall',
  'ms_query_p50',
  'ms_query_p95',
] as const;

/** Runs the zero-shot and the learned pass and writes both, side by side, to `--out`. */
export function sideBySide(argv: readonly string[]): void {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'accuracy.ts');
  const at = argv.indexOf('--out');
  const out = at >= 0 ? argv[at + 1] : undefined;
  const base = argv.filter((a, i) => a !== '--learn-from-gallery' && i !== at && i !== at + 1);
  const run = (extra: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...base, ...extra], {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    if (r.status !== 0) throw new Error(`accuracy pass ${extra.join(' ') || 'zero-shot'} failed with ${r.status}`);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  };
  const zeroShot = run([]);
  const learned = run(['--learned-pass']);
  const table = FIGURES.map((f) => ({ figure: f, zero_shot: zeroShot[f], learned_from_gallery: learned[f] }));
  const result = {
    dataset: zeroShot.dataset,
    side_by_side: table,
    learned_metric: learned.learned_metric,
    zero_shot: zeroShot,
    learned_from_gallery: learned,
  };
  saveResult(out, result);
  console.error(
    table.map((r) => `${r.figure.padEnd(18)} ${fmt(r.zero_shot).padStart(8)} ${fmt(r.learned_from_gallery).padStart(8)}`).join('\n'),
  );
  console.log(JSON.stringify({ dataset: result.dataset, side_by_side: table, learned_metric: result.learned_metric }));
}

const fmt = (v: unknown): string => (typeof v === 'number' ? (Math.abs(v) < 2 ? v.toFixed(3) : v.toFixed(0)) : String(v));

/**
 * An owner index searched through a fine-tuned backbone, as the service does it
 * (workers/src/learn/backbone-gallery.ts): the model's space picks and orders the hits, the
 * similarity reported is the base cosine. The engine hands the index only the base embedding,
 * so each query's backbone vector is registered beforehand under that embedding's bytes.
 */
class BackboneOwnerIndex extends OwnerIndex {
  private readonly queries = new Map<string, Float32Array>();
  constructor(
    dir: string,
    modelVersion: string,
    dim: number,
    private readonly base: ReadonlyMap<string, Float32Array>,
  ) {
    super(dir, modelVersion, dim);
  }
  register(global: Float32Array, vector: Float32Array): void {
    this.queries.set(keyOf(global), vector);
  }
  override search(vector: Float32Array, k: number, filter: IndexFilter): IndexHit[] {
    return this.learnedHits(vector, k, filter).map((h) => ({
      ...h,
      similarity: cosine(vector, this.base.get(h.id)!),
      learned: h.similarity,
    }));
  }
  /** Hits with the backbone's own cosine (what the serving index orders by). */
  learnedHits(global: Float32Array, k: number, filter: IndexFilter): IndexHit[] {
    const q = this.queries.get(keyOf(global));
    if (!q) throw new Error('a query reached the backbone index without its backbone vector');
    return super.search(q, k, filter);
  }
}

const keyOf = (v: Float32Array): string =>
  createHash('sha1')
    .update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
    .digest('hex');

/**
 * `--recipe backbone`: fine-tunes the backbone on the gallery crops exactly as the `train_metric`
 * job does (workers/src/learn/backbone-train.ts: one photo per individual held out, adoption by
 * held-out top-1 against the base embedding) and returns an index searching through it, plus
 * `embedQuery` to run before each identify (its time belongs to the query's latency).
 */
export async function backboneIndex(
  rows: readonly IndexRow[],
  bytesOf: (id: string) => Uint8Array,
  dir: string,
  modelVersion: string,
  log: (m: string) => void,
  cacheDir?: string,
  /** The class a photo trains as (default its individual; per flank: individual and side). */
  classOf: (r: IndexRow) => string = (r) => r.individualId,
) {
  const scratch = mkdtempSync(join(tmpdir(), 'markless-bench-crops-'));
  try {
    const samples: CropSample[] = [];
    for (const [i, r] of rows.entries()) {
      samples.push({
        label: classOf(r),
        base: r.vector,
        file: await writeCrop(scratch, `g${i}`, await subjectCrop(await decodeImage(bytesOf(r.id)), 'animal', null)),
      });
      if (i % 200 === 0) log(`crops ${i}/${rows.length}`);
    }
    // The settings the trainer will use here (they follow its device), so a GPU run is cached apart.
    const settings = backboneDefaultsFor(rows.length, (await trainerDevice()) ?? 'cpu');
    const h = createHash('sha256').update(BACKBONE_RECIPE).update(JSON.stringify(settings));
    for (const r of rows) h.update(r.id).update(classOf(r));
    const file = cacheDir ? join(cacheDir, `backbone-${h.digest('hex')}`) : '';
    let j: Omit<BackboneJudgement, 'onnx' | 'test' | 'strangers'> & { onnx: Uint8Array; ms: number; test: number[]; strangers: string[] };
    if (file && existsSync(file + '.json')) {
      j = { ...JSON.parse(readFileSync(file + '.json', 'utf8')), onnx: new Uint8Array(readFileSync(file + '.onnx')) };
    } else {
      const t = performance.now();
      const judged = await judgeBackbone(scratch, samples, null);
      j = { ...judged, test: [...judged.test], strangers: [...judged.strangers], ms: performance.now() - t };
      if (file) {
        mkdirSync(cacheDir!, { recursive: true });
        writeFileSync(file + '.onnx', j.onnx);
        writeFileSync(file + '.json', JSON.stringify({ ...j, onnx: undefined }));
      }
    }
    const report = {
      recipe: BACKBONE_RECIPE,
      trained_on: `gallery only: ${rows.length} photos of ${new Set(rows.map((r) => r.individualId)).size} individuals, its last third of photos per individual held out (at most ${HELD_OUT_PER_INDIVIDUAL}) and ${j.strangers.length} individuals held out whole (strangers)`,
      // The global stage's rule only: the service adopts by the served-pipeline gate
      // (served-gate.ts), which benchmarks/herd-learning.ts measures through the API.
      adopted: j.adopt,
      held_out_top1_base: j.currentTop1,
      held_out_top1_finetuned: j.candidateTop1,
      held_out: j.evaluated,
      strangers: j.strangers.length,
      settings,
      trainer: j.log,
      train_ms: Math.round(j.ms),
    };
    log(`fine-tuned backbone: ${JSON.stringify(report)}`);
    const model = await OwnerBackbone.fromBytes(j.onnx, j.shape);
    const vectors = await embedFiles(
      model,
      samples.map((s) => s.file),
    );
    const index = new BackboneOwnerIndex(dir, `${modelVersion}+backbone`, j.shape.dim, new Map(rows.map((r) => [r.id, r.vector])));
    index.rebuild(rows.map((r, i) => ({ ...r, vector: vectors[i]! })));
    // Gallery photos identified during calibration reuse their own vectors.
    rows.forEach((r, i) => index.register(r.vector, vectors[i]!));
    const embedQuery = async (bytes: Uint8Array, global: Float32Array): Promise<void> => {
      const [v] = await model.embed([await subjectCrop(await decodeImage(bytes), 'animal', null)]);
      index.register(global, v!);
    };
    // Calibration must not score photos the model was trained on: it gets the held-out ones.
    const calibrateOn = new Set([...j.test].map((i) => rows[i]!.id));
    // Strangers are classes; an individual stands for the open set when any of its classes is one
    // (per flank, a query only meets its own flank's photos, whose class was never trained).
    const strangerClasses = new Set(j.strangers);
    return {
      index,
      report,
      embedQuery,
      calibrateOn,
      strangers: new Set(rows.filter((r) => strangerClasses.has(classOf(r))).map((r) => r.individualId)),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
