/**
 * The learning loop keeps what it learned (issue 41, item 3). The gate (served-gate.ts) judges a
 * backbone trained without a third of each individual's photos and without a few whole
 * individuals, so the model it adopts never saw them. On a held-out striped-antelope gallery a
 * model trained that way ranked the right animal first far less often than one that held back a
 * single photo per animal (issue 41). So once the gate has adopted, the same recipe (the judged
 * run's resolved settings: epochs, seed, freeze, margin, sizes) trains again on every photo, and
 * both are scored as the gate scores, on the same held-out photos through the served pipeline.
 * The retrained model serves only if it does no worse on either figure; otherwise the judged one
 * serves and the record says why.
 *
 * The check is a guard, not a second estimate of how well it generalises: the retrained model has
 * seen the held-out photos, so its top-1 on them flatters it, and only a retrain that went wrong
 * shows as a fall. What it truly gives up is calibration: no photo is left that it never trained
 * on, so until new photos arrive the owner's fit for it vouches for nothing and it answers no
 * `match` (owner-calibration.ts honestSample, calibrationFor). It is therefore scored with a
 * calibration of no queries, and where the judged model would answer `match` at ≤ 1% false
 * matches, the judged model keeps serving.
 *
 * Nothing is stored here: the caller stores the one served version in a single transaction with
 * both figures, so a worker that dies mid-retrain leaves nothing half-adopted and the retried job
 * judges and retrains again.
 */
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { learningMessage, percent, renderLearning, type LearningMessage } from '../../../shared/src/domain/learning-reason.js';
import type { RetrainFigures, RetrainRecord } from '../../../shared/src/domain/learning-retrain.js';
import type { RecognitionEngine } from '../vision/engine.js';
import { retrainBackbone, type BackboneJudgement, type FineTuneRun, type RetrainedBackbone } from './backbone-train.js';
import { compareServed } from './served-compare.js';
import type { ServedFigures } from './served-gate.js';
import { LEARNED_MODEL_NAME } from './store.js';

export interface RetrainChoice {
  served: 'retrained' | 'judged';
  message: LearningMessage;
}

/**
 * Which model serves, from the two scored on the same held-out photos: the retrained one when
 * neither its top-1 nor its correct `match` answers fall below the judged one's (ties go to the
 * retrained model, which saw more photos).
 */
export function chooseServed(
  judged: ServedFigures,
  retrained: ServedFigures,
  photos: { all: number; judged: number },
  target = 0.01,
): RetrainChoice {
  const figures = {
    photos: photos.all,
    queries: judged.closed,
    top1_judged: percent(judged.top1),
    top1_retrained: percent(retrained.top1),
    match_judged: percent(judged.correct_match),
    match_retrained: percent(retrained.correct_match),
  };
  if (retrained.top1 < judged.top1) {
    return {
      served: 'judged',
      message: learningMessage('learn_retrain_top1_fell', {
        photos: photos.all,
        queries: judged.closed,
        top1_judged: figures.top1_judged,
        top1_retrained: figures.top1_retrained,
      }),
    };
  }
  if (retrained.correct_match < judged.correct_match) {
    return {
      served: 'judged',
      message: learningMessage('learn_retrain_fewer_matches', {
        photos: photos.all,
        queries: judged.closed,
        target: percent(target),
        match_judged: figures.match_judged,
        match_retrained: figures.match_retrained,
      }),
    };
  }
  return { served: 'retrained', message: learningMessage('learn_retrain_served', { ...figures, judged_photos: photos.judged }) };
}

/** The recipe both runs share, as the record shows it. */
const recipeOf = (j: BackboneJudgement): Record<string, number> => ({ ...j.options });

const sideOf = (trainedOn: number, f: ServedFigures): RetrainFigures => ({ trained_on: trainedOn, ...f });

/**
 * Trains the adopted recipe again on every photo of `run` (its crops are still on disk) and
 * decides which model serves. `judged`: the gate's figures of the judged model and the queries its
 * refit will rest on (what the gate judged it with).
 */
export async function keepLearned(
  c: Container,
  engine: RecognitionEngine,
  kind: Kind,
  run: FineTuneRun & { judgement: BackboneJudgement },
  judged: { figures: ServedFigures; calibration: number },
  targetFmr = 0.01,
): Promise<{ record: RetrainRecord; retrained: RetrainedBackbone | null }> {
  const j = run.judgement;
  const judgedOn = run.samples.filter((s, i) => !j.test.has(i) && !j.strangers.has(s.label)).length;
  const all = run.samples.length;
  let again: RetrainedBackbone;
  try {
    again = await retrainBackbone(run.dir, run.samples, j.options);
  } catch (err) {
    // The judged model was adopted on its own merits; a failed retrain only leaves it serving.
    const detail = (err as Error).message.slice(0, 300);
    const message = learningMessage('learn_retrain_failed', { photos: all, detail });
    return {
      record: {
        served: 'judged',
        reason: renderLearning(message, 'en'),
        message,
        recipe: recipeOf(j),
        judged: sideOf(judgedOn, judged.figures),
        retrained: null,
        error: detail,
      },
      retrained: null,
    };
  }
  // Judged first (the gate's candidate again, at the calibration it was judged with), the retrained
  // model second, with no query left that it never trained on.
  const cmp = await compareServed(
    c,
    engine,
    kind,
    run.samples,
    j.test,
    { vectors: j.vectors, learned: { name: LEARNED_MODEL_NAME, version: 'judged' } },
    { vectors: again.vectors, learned: { name: LEARNED_MODEL_NAME, version: 'retrained' } },
    { servedCalibration: judged.calibration, candidateCalibration: 0, targetFmr },
    j.strangers,
  );
  const choice = chooseServed(cmp.served, cmp.candidate, { all, judged: judgedOn }, targetFmr);
  return {
    record: {
      served: choice.served,
      reason: renderLearning(choice.message, 'en'),
      message: choice.message,
      recipe: recipeOf(j),
      judged: sideOf(judgedOn, cmp.served),
      retrained: sideOf(all, cmp.candidate),
      error: null,
    },
    retrained: again,
  };
}
