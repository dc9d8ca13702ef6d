/**
 * Versions of learned metrics in the `learned_models` table (migration 045): store a trained
 * version (adopted or rejected), find the adopted one, roll back to the previous adopted one.
 */
import type { Database, Queryable } from '../../../shared/src/ports/database.port.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
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

export type LearnedStatus = 'adopted' | 'rejected' | 'retired' | 'rolled_back';

export interface LearnedVersion {
  ownerId: string;
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

interface Row {
  owner_id: string;
  kind: Kind;
  version: number;
  recipe: string;
  base_model: string;
  base_version: string;
  status: LearnedStatus;
  params: Uint8Array;
  report: Record<string, unknown>;
}

const COLS = 'owner_id, kind, version, recipe, base_model, base_version, status, params, report';

function fromRow(r: Row): LearnedVersion {
  const params = Uint8Array.from(r.params);
  const backbone = r.recipe === BACKBONE_RECIPE;
  return {
    ownerId: r.owner_id,
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
export async function adoptedVersion(db: Queryable, ownerId: string, kind: Kind, base: ModelRef): Promise<LearnedVersion | null> {
  const r = await db.query<Row>(
    `select ${COLS} from learned_models where owner_id = $1 and kind = $2 and status = 'adopted' and base_model = $3 and base_version = $4`,
    [ownerId, kind, base.name, base.version],
  );
  return r.rows[0] ? fromRow(r.rows[0]) : null;
}

/** The version a retried job already stored under `jobKey`, if any. */
export async function versionForJob(db: Queryable, ownerId: string, kind: Kind, jobKey: string): Promise<LearnedVersion | null> {
  const r = await db.query<Row>(`select ${COLS} from learned_models where owner_id = $1 and kind = $2 and job_key = $3`, [
    ownerId,
    kind,
    jobKey,
  ]);
  return r.rows[0] ? fromRow(r.rows[0]) : null;
}

/**
 * Of `imageIds`, the photos enrolled after the version was stored. A version trained on every
 * photo (report.trained_on_all) has seen all the others, so only these can judge it fairly.
 */
export async function enrolledAfter(
  db: Queryable,
  v: Pick<LearnedVersion, 'ownerId' | 'kind' | 'version'>,
  imageIds: readonly string[],
): Promise<Set<string>> {
  const r = await db.query<{ id: string }>(
    `select i.id from images i where i.id = any($1::uuid[])
        and i.created_at > (select created_at from learned_models where owner_id = $2 and kind = $3 and version = $4)`,
    [imageIds, v.ownerId, v.kind, v.version],
  );
  return new Set(r.rows.map((x) => x.id));
}

/** All versions, newest first (for the CLI's listing). */
export async function listVersions(db: Queryable, ownerId: string, kind: Kind) {
  const r = await db.query<Omit<Row, 'params'>>(
    `select owner_id, kind, version, recipe, base_model, base_version, status, report from learned_models where owner_id = $1 and kind = $2 order by version desc`,
    [ownerId, kind],
  );
  return r.rows;
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
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`learned:${v.ownerId}:${v.kind}`]);
    if (v.jobKey) {
      const done = await versionForJob(tx, v.ownerId, v.kind, v.jobKey);
      if (done) return done;
    }
    const next = await tx.query<{ n: number }>(
      'select coalesce(max(version), 0) + 1 as n from learned_models where owner_id = $1 and kind = $2',
      [v.ownerId, v.kind],
    );
    const version = Number(next.rows[0]!.n);
    if (v.adopt)
      await tx.query(
        `update learned_models set status = 'retired', changed_at = now() where owner_id = $1 and kind = $2 and status = 'adopted'`,
        [v.ownerId, v.kind],
      );
    const status: LearnedStatus = v.adopt ? 'adopted' : 'rejected';
    await tx.query(
      `insert into learned_models (owner_id, kind, version, recipe, base_model, base_version, status, params, report, job_key)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [v.ownerId, v.kind, version, v.recipe, v.base.name, v.base.version, status, Buffer.from(paramsOf(v)), v.report, v.jobKey],
    );
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
export async function rollback(db: Database, ownerId: string, kind: Kind): Promise<{ rolledBack: number | null; adopted: number | null }> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`learned:${ownerId}:${kind}`]);
    const cur = await tx.query<{ version: number }>(
      `select version from learned_models where owner_id = $1 and kind = $2 and status = 'adopted'`,
      [ownerId, kind],
    );
    const current = cur.rows[0]?.version ?? null;
    if (current === null) return { rolledBack: null, adopted: null };
    await tx.query(
      `update learned_models set status = 'rolled_back', changed_at = now() where owner_id = $1 and kind = $2 and version = $3`,
      [ownerId, kind, current],
    );
    const prev = await tx.query<{ version: number }>(
      `update learned_models set status = 'adopted', changed_at = now() where id = (
         select id from learned_models where owner_id = $1 and kind = $2 and status = 'retired' and version < $3 order by version desc limit 1)
       returning version`,
      [ownerId, kind, current],
    );
    const adopted = prev.rows[0]?.version ?? null;
    // The loop's record (learn/loop.ts): the owner and the operator see the rollback beside the runs.
    await tx.query(
      `insert into learning_runs (owner_id, kind, trigger, status, decision, finished_at) values ($1, $2, $3, 'rolled_back', $4, now())`,
      [ownerId, kind, { command: 'rollback' }, { rolled_back: current, adopted, ...rolledBackReason(current, adopted) }],
    );
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
