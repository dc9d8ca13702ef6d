/**
 * Versions of learned metrics in the `learned_models` table (migration 045): store a trained
 * version (adopted or rejected), find the adopted one, roll back to the previous adopted one.
 */
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Database, Queryable } from '../../../shared/src/ports/database.port.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { learnedModelsRepo, type LearnedModelRow, type LearnedStatus } from '../../../shared/src/repos/learned-models.repo.js';
import { recordRollback } from '../../../shared/src/repos/learning-runs.js';
import type { ModelRef } from '../vision/embed.js';
import { metricFromBytes, metricToBytes, type LinearMetric } from './metric.js';
import { learningMessage, renderLearning } from '../../../shared/src/domain/learning-reason.js';

/** The recipe whose params are a fine-tuned ONNX model rather than a linear metric (backbone.ts). */
/**
 * v3: a fifth of the individuals (2 to 8) also held out whole, the only open set the gate and the
 * calibration may use; v2: up to 4 photos per individual held out (v1: one), enough to calibrate on.
 */
export const BACKBONE_RECIPE = 'finetuned-mobilenetv2-v3';

/** Name under which learned versions appear next to the base model on answers. */
export const LEARNED_MODEL_NAME = 'owner-metric';

export type { LearnedStatus };

export interface LearnedVersion {
  /** The account whose version it is: the scope it was read or stored in. */
  owner: OwnerScope;
  kind: Kind;
  version: number;
  recipe: string;
  base: ModelRef;
  status: LearnedStatus;
  /** The linear metric over the base embedding (recipe proxy-softmax-linear-v1), else null. */
  metric: LinearMetric | null;
  /** The fine-tuned ONNX model (recipe BACKBONE_RECIPE), else null. */
  backbone: Uint8Array | null;
  report: Record<string, unknown>;
}

function fromRow(owner: OwnerScope, r: LearnedModelRow): LearnedVersion {
  const params = Uint8Array.from(r.params);
  const backbone = r.recipe === BACKBONE_RECIPE;
  return {
    owner,
    kind: r.kind,
    version: r.version,
    recipe: r.recipe,
    status: r.status,
    report: r.report,
    base: { name: r.base_model, version: r.base_version },
    metric: backbone ? null : metricFromBytes(params),
    backbone: backbone ? params : null,
  };
}

/** The adopted version for an owner and kind, if it was trained on `base` (else none: retrain). */
export async function adoptedVersion(db: Queryable, owner: OwnerScope, kind: Kind, base: ModelRef): Promise<LearnedVersion | null> {
  const row = await learnedModelsRepo.adopted(db, owner, kind, base);
  return row ? fromRow(owner, row) : null;
}

/** The version a retried job already stored under `jobKey`, if any. */
export async function versionForJob(db: Queryable, owner: OwnerScope, kind: Kind, jobKey: string): Promise<LearnedVersion | null> {
  const row = await learnedModelsRepo.byJob(db, owner, kind, jobKey);
  return row ? fromRow(owner, row) : null;
}

/**
 * Of `imageIds`, the photos enrolled after the version was stored. A version trained on every
 * photo (report.trained_on_all) has seen all the others, so only these can judge it fairly.
 */
export async function enrolledAfter(
  db: Queryable,
  v: Pick<LearnedVersion, 'owner' | 'kind' | 'version'>,
  imageIds: readonly string[],
): Promise<Set<string>> {
  return new Set(await learnedModelsRepo.imagesAfter(db, v.owner, v, imageIds));
}

/** All versions, newest first (for the CLI's listing). */
export async function listVersions(db: Queryable, owner: OwnerScope, kind: Kind) {
  return learnedModelsRepo.list(db, owner, kind);
}

/**
 * Stores a trained version under the next version number. When `adopt`, the adopted one (if
 * any) is retired in the same transaction, so exactly one stays adopted.
 */
export async function saveVersion(
  db: Database,
  v: Omit<LearnedVersion, 'version' | 'status' | 'metric' | 'backbone'> & {
    metric?: LinearMetric;
    backbone?: Uint8Array;
    adopt: boolean;
    jobKey: string | null;
  },
): Promise<LearnedVersion> {
  return db.transaction(async (tx) => {
    // Serialises concurrent trainings of one owner and kind on the version number.
    await learnedModelsRepo.lock(tx, v.owner, v.kind);
    if (v.jobKey) {
      const done = await versionForJob(tx, v.owner, v.kind, v.jobKey);
      if (done) return done;
    }
    const version = await learnedModelsRepo.nextVersion(tx, v.owner, v.kind);
    if (v.adopt) await learnedModelsRepo.retireAdopted(tx, v.owner, v.kind);
    const status: LearnedStatus = v.adopt ? 'adopted' : 'rejected';
    await learnedModelsRepo.insert(tx, v.owner, {
      kind: v.kind,
      version,
      recipe: v.recipe,
      base_model: v.base.name,
      base_version: v.base.version,
      status,
      params: paramsOf(v),
      report: v.report,
      job_key: v.jobKey,
    });
    return { ...v, metric: v.metric ?? null, backbone: v.backbone ?? null, version, status };
  });
}

function paramsOf(v: { recipe: string; metric?: LinearMetric; backbone?: Uint8Array }): Uint8Array {
  if (v.recipe === BACKBONE_RECIPE) {
    if (!v.backbone) throw new Error('a backbone version needs its ONNX bytes');
    return v.backbone;
  }
  if (!v.metric) throw new Error('a linear version needs its metric');
  return metricToBytes(v.metric);
}

/**
 * Rolls back: the adopted version becomes `rolled_back` and the newest earlier `retired` one is
 * adopted again; with none, identify goes back to the base embedding alone.
 * @returns the version now adopted (null: the base embedding) and the one rolled back (null: nothing was adopted).
 */
export async function rollback(
  db: Database,
  owner: OwnerScope,
  kind: Kind,
): Promise<{ rolledBack: number | null; adopted: number | null }> {
  return db.transaction(async (tx) => {
    await learnedModelsRepo.lock(tx, owner, kind);
    const current = await learnedModelsRepo.adoptedNumber(tx, owner, kind);
    if (current === null) return { rolledBack: null, adopted: null };
    await learnedModelsRepo.markRolledBack(tx, owner, kind, current);
    const adopted = await learnedModelsRepo.readoptRetiredBefore(tx, owner, kind, current);
    // The loop's record (learn/loop.ts): the owner and the operator see the rollback beside the runs.
    await recordRollback(tx, owner, {
      kind,
      trigger: { command: 'rollback' },
      decision: { rolled_back: current, adopted, ...rolledBackReason(current, adopted) },
    });
    return { rolledBack: current, adopted };
  });
}

/** A rollback's record: the sentence in English and as a catalogue message for the owner's language. */
function rolledBackReason(version: number, adopted: number | null) {
  const message =
    adopted === null
      ? learningMessage('learn_rolled_back_base', { version })
      : learningMessage('learn_rolled_back_to', { version, adopted });
  return { reason: renderLearning(message, 'en'), message };
}
