/**
 * Train an owner's metric and decide whether to adopt it. Used by the `train_metric` job, by
 * `npm run train` and by the accuracy benchmark (`--learn-from-gallery`).
 *
 * The rule: a candidate is adopted only when its cross-validated leave-one-out top-1 on the
 * owner's gallery beats the current one (the adopted version, or the base embedding alone) by at
 * least `minGain`. Every trained version is stored, adopted or rejected, with its report.
 */
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { RecognitionEngine } from '../vision/engine.js';
import { crossValidate, scoreMetric, type HoldoutScore } from './holdout.js';
import { ownerLabels } from './labelled.js';
import { trainMetric, type Labelled, type LinearMetric, type TrainOptions } from './metric.js';
import { canTrainBackbone, type BackboneOptions } from './backbone.js';
import { fineTuneOwner, type CropSample } from './backbone-train.js';
import { storeLearnedEmbedding } from './backbone-gallery.js';
import {
  adoptedVersion,
  BACKBONE_RECIPE,
  enrolledAfter,
  LEARNED_MODEL_NAME,
  saveVersion,
  versionForJob,
  type LearnedVersion,
} from './store.js';
import { compareServed } from './served-compare.js';
import { keepLearned } from './keep-learned.js';
import type { GateOptions } from './served-gate.js';
import { learningMessage, percent, renderLearning, type LearningCode } from '../../../shared/src/domain/learning-reason.js';
import { calibrationQueries, loadOwnerCalibration, pipelineKey } from '../recognition/owner-calibration.js';

/** The training recipe; stored with every version so a later recipe change is visible. */
export const RECIPE = 'proxy-softmax-linear-v1';

/** What `npm run train -- --recipe` and the `train_metric` job accept. */
export const RECIPES = { linear: RECIPE, backbone: BACKBONE_RECIPE } as const;
export type RecipeName = keyof typeof RECIPES;

export interface JudgeOptions extends TrainOptions {
  folds?: number;
  /** Absolute top-1 gain the candidate must show (default 0.01). */
  minGain?: number;
  /** The served-pipeline gate's sample minimums and noise band (served-gate.ts). */
  gate?: GateOptions;
  /** Adopt whatever the gate says (tests that exercise serving with a tiny model; operators who know better). */
  forceAdopt?: boolean;
}

export interface Judgement {
  adopt: boolean;
  candidate: HoldoutScore;
  current: HoldoutScore;
  minGain: number;
  metric: LinearMetric;
  ms: number;
}

/** Default training settings, scaled so a gallery of a few thousand photos trains in minutes on one core. */
export function defaultsFor(n: number): TrainOptions {
  return { dimOut: 128, epochs: n > 1500 ? 20 : 40, learningRate: 0.01, scale: 16, batch: 32, seed: 1 };
}

/** Cross-validates the recipe, compares with `current`, and trains the final metric on every sample. */
export async function judge(samples: readonly Labelled[], current: LinearMetric | null, opts: JudgeOptions = {}): Promise<Judgement> {
  const t = performance.now();
  const o = { ...defaultsFor(samples.length), ...opts };
  const minGain = opts.minGain ?? 0.01;
  const candidate = await crossValidate(samples, o);
  const cur = scoreMetric(samples, current);
  const metric = await trainMetric(samples, o);
  const adopt = candidate.evaluated > 0 && candidate.top1 >= cur.top1 + minGain;
  return { adopt, candidate, current: cur, minGain, metric, ms: performance.now() - t };
}

/** Whether the samples can train anything: two individuals, one of them with two photos. */
export function trainable(samples: readonly Labelled[]): boolean {
  const count = new Map<string, number>();
  for (const s of samples) count.set(s.label, (count.get(s.label) ?? 0) + 1);
  return count.size >= 2 && [...count.values()].some((n) => n >= 2);
}

export interface TrainOutcome {
  status: 'adopted' | 'rejected' | 'skipped';
  version: number | null;
  report: Record<string, unknown>;
}

/** The decision as a catalogue sentence (`message`, shown in the owner's language) and its English (`key`: `decision` or `reason`). */
function said(key: 'decision' | 'reason', code: LearningCode, params: Record<string, number> = {}) {
  const message = learningMessage(code, params);
  return { [key]: renderLearning(message, 'en'), message };
}

const skipped = (code: LearningCode, figures: Record<string, number>, extra: Record<string, unknown> = {}): TrainOutcome => ({
  status: 'skipped',
  version: null,
  report: { ...said('reason', code, figures), ...figures, ...extra },
});

/**
 * Trains one owner's metric for one kind and stores the version. Idempotent per `jobKey`: a retry
 * returns the version the first run stored instead of training again. `owner` is the account the
 * `train_metric` job runs for (its handler's scopeOfJob), or the operator's CLI argument.
 */
export async function trainOwner(
  c: Container,
  engine: RecognitionEngine,
  owner: OwnerScope,
  kind: Kind,
  jobKey: string | null,
  opts: JudgeOptions & { recipe?: RecipeName; backbone?: BackboneOptions } = {},
): Promise<TrainOutcome> {
  if (jobKey) {
    const done = await versionForJob(c.db, owner, kind, jobKey);
    if (done) return { status: done.status === 'adopted' ? 'adopted' : 'rejected', version: done.version, report: done.report };
  }
  if (opts.recipe === 'backbone') return trainOwnerBackbone(c, engine, owner, kind, jobKey, opts);
  const labels = await ownerLabels(c, engine, owner, kind);
  if (!trainable(labels.samples)) {
    return skipped('learn_needs_two', { photos: labels.samples.length });
  }
  const current = await adoptedVersion(c.db, owner, kind, engine.model);
  const j = await judge(labels.samples, current?.metric ?? null, opts);
  // A linear metric never sees a fine-tuned backbone's space, so it must beat that version's
  // own held-out figure instead (a different split of the same photos: an approximation).
  if (current?.backbone) j.adopt = j.adopt && j.candidate.top1 >= Number(current.report.candidate_top1 ?? 1) + j.minGain;
  const report = {
    recipe: RECIPE,
    // The linear metric only reorders the shortlist; it is judged by its cross-validated gallery top-1.
    ...said('decision', j.adopt ? 'learn_linear_adopted' : 'learn_linear_refused', {
      candidate: percent(j.candidate.top1),
      served: percent(j.current.top1),
      gain: percent(j.minGain),
      photos: j.candidate.evaluated,
    }),
    photos: labels.samples.length,
    enrolled_photos: labels.enrolledPhotos,
    verdict_photos: labels.verdictPhotos,
    individuals: new Set(labels.samples.map((s) => s.label)).size,
    candidate_loo_top1: j.candidate.top1,
    current_loo_top1: j.current.top1,
    current_version: current?.version ?? null,
    evaluated: j.candidate.evaluated,
    min_gain: j.minGain,
    train_ms: Math.round(j.ms),
  };
  const saved = await saveVersion(c.db, {
    owner,
    kind,
    recipe: RECIPE,
    base: engine.model,
    metric: j.metric,
    report,
    adopt: j.adopt,
    jobKey,
  });
  return { status: saved.status === 'adopted' ? 'adopted' : 'rejected', version: saved.version, report: saved.report };
}

/** The fine-tuning recipe (backbone-train.ts), stored and adopted by the same rules. */
async function trainOwnerBackbone(
  c: Container,
  engine: RecognitionEngine,
  owner: OwnerScope,
  kind: Kind,
  jobKey: string | null,
  opts: JudgeOptions & { backbone?: BackboneOptions },
): Promise<TrainOutcome> {
  if (kind !== 'animal') return skipped('learn_backbone_animals_only', {}, { recipe: BACKBONE_RECIPE });
  if (!(await canTrainBackbone())) return skipped('learn_no_trainer', {}, { recipe: BACKBONE_RECIPE });
  const current: LearnedVersion | null = await adoptedVersion(c.db, owner, kind, engine.model);
  const t = performance.now();
  return fineTuneOwner(c, engine, owner, kind, current, { ...opts.backbone, minGain: opts.minGain }, async (run): Promise<TrainOutcome> => {
    const j = run.judgement;
    if (!j || j.evaluated === 0) {
      return skipped('learn_needs_two', { photos: run.samples.length }, { recipe: BACKBONE_RECIPE });
    }
    // The decision is the served pipeline's, not the global stage's (which only shortlists).
    const current_ref = current?.backbone ? { name: LEARNED_MODEL_NAME, version: String(current.version) } : undefined;
    const sizes = { ...(await calibrationSizes(c, engine, owner, kind, current, run.samples, j.test, j.strangers)), ...opts.gate };
    // A served model retrained on every photo has seen every held-out photo enrolled before it, and
    // its top-1 on them flatters it against a candidate that never did: it is judged on the others only.
    const gateTest = current?.backbone && current.report.trained_on_all === true ? await unseenBy(c, current, run.samples, j.test) : j.test;
    const gate = await compareServed(
      c,
      engine,
      kind,
      run.samples,
      gateTest,
      { vectors: current?.backbone || current?.metric ? j.currentVectors : [], ...(current_ref ? { learned: current_ref } : {}) },
      { vectors: j.vectors, learned: { name: LEARNED_MODEL_NAME, version: 'candidate' } },
      sizes,
      j.strangers,
    );
    const adopt = gate.adopt || opts.forceAdopt === true;
    // Adopted: the same recipe trains again on every photo and serves if it does no worse (keep-learned.ts).
    const kept = adopt
      ? await keepLearned(
          c,
          engine,
          kind,
          { ...run, judgement: j },
          { figures: gate.candidate, calibration: sizes.candidateCalibration ?? gate.candidate.calibration_queries },
          sizes.targetFmr,
        )
      : null;
    const retrained = kept?.record.served === 'retrained' ? kept.retrained : null;
    const report = {
      recipe: BACKBONE_RECIPE,
      decision: gate.reason,
      message: gate.message,
      served_gate: gate,
      photos: run.samples.length,
      enrolled_photos: run.enrolled,
      verdict_photos: run.samples.length - run.enrolled,
      held_out: j.evaluated,
      // The held-out photos the gate asked: fewer than held_out when the served model had seen some.
      gate_held_out: gateTest.size,
      // What the served model never trained on: after adoption the owner's calibration is fitted on
      // these alone. The retrained model trained on every photo, so only photos enrolled after it count.
      held_out_images: retrained ? [] : [...j.test].flatMap((i) => (run.samples[i]?.imageId ? [run.samples[i]!.imageId!] : [])),
      strangers: retrained ? [] : [...j.strangers],
      trained_on_all: retrained !== null,
      // The global stage alone on the held-out photos (before the gate, this decided), for the judged model.
      candidate_top1: j.candidateTop1,
      current_top1: j.currentTop1,
      current_version: current?.version ?? null,
      min_gain: j.minGain,
      shape: j.shape,
      // The trainer's own record of the model stored (the judged one's too, when the retrained one serves).
      trainer: retrained ? retrained.log : j.log,
      ...(retrained ? { judged_trainer: j.log } : {}),
      retrain: kept?.record ?? null,
      train_ms: Math.round(performance.now() - t),
    };
    // One transaction stores the one model that serves, with both figures: a worker that dies
    // before it leaves nothing adopted, and the retried job judges and retrains again.
    const saved = await saveVersion(c.db, {
      owner,
      kind,
      recipe: BACKBONE_RECIPE,
      base: engine.model,
      backbone: retrained?.onnx ?? j.onnx,
      report,
      adopt,
      jobKey,
    });
    // The gallery is already embedded by the stored model: keep it, so the first identify need not.
    if (saved.status === 'adopted') await keepEmbeddings(c, owner, kind, saved.version, run.samples, retrained?.vectors ?? j.vectors);
    return { status: saved.status === 'adopted' ? 'adopted' : 'rejected', version: saved.version, report: saved.report };
  });
}

/** The held-out samples enrolled after `served` was stored (the only ones a model trained on every photo has not seen). */
async function unseenBy(
  c: Container,
  served: LearnedVersion,
  samples: readonly CropSample[],
  test: ReadonlySet<number>,
): Promise<Set<number>> {
  const ids = [...test].flatMap((i) => (samples[i]?.imageId ? [samples[i]!.imageId!] : []));
  const after = await enrolledAfter(c.db, served, ids);
  return new Set([...test].filter((i) => after.has(samples[i]?.imageId ?? '')));
}

/**
 * The queries each side's calibration rests on, so the gate judges each at the threshold it would
 * be served with: the served pipeline's stored owner fit (or the fit the base model would get),
 * and the candidate's refit, which may only use the photos it never trained on.
 */
async function calibrationSizes(
  c: Container,
  engine: RecognitionEngine,
  owner: OwnerScope,
  kind: Kind,
  current: LearnedVersion | null,
  samples: readonly CropSample[],
  test: ReadonlySet<number>,
  away: ReadonlySet<string>,
): Promise<{ servedCalibration: number; candidateCalibration: number }> {
  const cap = c.config.CALIBRATION_MAX_PHOTOS;
  const servedRef = current ? { name: LEARNED_MODEL_NAME, version: String(current.version) } : null;
  const stored = await loadOwnerCalibration(c.db, owner, kind, pipelineKey(engine, servedRef));
  const enrolled = samples.filter((s) => s.imageId).length;
  const tested = [...test].filter((i) => samples[i]?.imageId);
  const ofStrangers = tested.filter((i) => away.has(samples[i]!.label)).length;
  return {
    // A fine-tuned model with no fit of its own withholds every match (calibrationFor), as after a
    // retrain on every photo until new photos arrive: judged as it serves, not as the base model would.
    servedCalibration: stored?.params ? stored.report.n : current?.backbone ? 0 : calibrationQueries(0, enrolled, cap, true),
    candidateCalibration: calibrationQueries(ofStrangers, tested.length - ofStrangers, cap),
  };
}

async function keepEmbeddings(
  c: Container,
  owner: OwnerScope,
  kind: Kind,
  version: number,
  samples: readonly CropSample[],
  vectors: readonly (Float32Array | null)[],
) {
  await c.db.transaction(async (tx) => {
    for (const [i, s] of samples.entries())
      if (s.imageId && vectors[i]) await storeLearnedEmbedding(tx, { owner, kind, version }, s.imageId, vectors[i]!);
  });
}
