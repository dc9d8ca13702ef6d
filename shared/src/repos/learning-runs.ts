/**
 * The learning loop runs itself (issue 23): once an owner has enough new enrolled photos or
 * identify_verdict labels of one kind since its last run (`LEARN_AFTER_NEW`), a `train_metric`
 * job is queued on the bulk lane (the `reindex` queue, behind every identify), which trains,
 * judges the candidate on the served pipeline, adopts or refuses it, refits the owner's
 * calibration, and records the decision here. The owner reads it at `GET /api/learning/{kind}`,
 * the operator at `/metrics`; `npm run train -- --rollback` undoes an adoption (recorded too).
 *
 * A run is its account's own (shared/src/access/policy.ts): every per-owner statement takes the
 * owner's `OwnerScope`; only the operator's totals (`runTotals`) read every owner's runs.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Container } from '../container.js';
import type { Kind } from '../domain/jobs.js';
import { learningMessage, renderLearning } from '../domain/learning-reason.js';
import type { Queryable } from '../ports/database.port.js';

export type RunStatus = 'queued' | 'adopted' | 'refused' | 'skipped' | 'failed' | 'rolled_back';

export interface Pending {
  since: string | null;
  new_photos: number;
  new_labels: number;
}

/** What arrived since the owner's last run of this kind (its start; all of it before the first run). */
export async function pendingSinceLastRun(db: Queryable, scope: OwnerScope, kind: Kind): Promise<Pending> {
  const ownerId = scope.ownerId;
  const last = await db.query<{ at: Date | string | null }>(
    'select max(created_at) as at from learning_runs where owner_id = $1 and kind = $2 and status <> $3',
    [ownerId, kind, 'rolled_back'],
  );
  const since = last.rows[0]?.at ? new Date(last.rows[0].at) : new Date(0);
  const photos = await db.query<{ n: number }>(
    `select count(*)::int as n from images i join individuals ind on ind.id = i.individual_id
      where ind.owner_id = $1 and ind.kind = $2 and ind.deleted_at is null and i.created_at > $3`,
    [ownerId, kind, since],
  );
  const labels = await db.query<{ n: number }>(
    `select count(*)::int as n from identify_verdicts v join identify_queries q on q.id = v.query_id
      where v.owner_id = $1 and q.kind = $2 and v.created_at > $3`,
    [ownerId, kind, since],
  );
  return { since: since.getTime() > 0 ? since.toISOString() : null, new_photos: photos.rows[0]!.n, new_labels: labels.rows[0]!.n };
}

/**
 * Queues the owner's training when enough is new and no run is already queued. Safe to call
 * from any process after every enrolment or label: the check and the row are one transaction
 * under an advisory lock, and the job id is the run's, so a second caller queues nothing.
 */
export async function maybeQueueLearning(
  c: Container,
  scope: OwnerScope,
  kind: Kind,
  threshold = c.config.LEARN_AFTER_NEW,
): Promise<{ queued: boolean; run_id?: number; job_id?: string } & Pending> {
  if (threshold <= 0) return { queued: false, since: null, new_photos: 0, new_labels: 0 };
  const ownerId = scope.ownerId;
  const decided = await c.db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`learning:${ownerId}:${kind}`]);
    // A run queued a day ago and never finished (its job lost) no longer holds the loop back.
    const open = await tx.query(
      `select 1 from learning_runs where owner_id = $1 and kind = $2 and status = 'queued' and created_at > now() - interval '1 day'`,
      [ownerId, kind],
    );
    const pending = await pendingSinceLastRun(tx, scope, kind);
    if (open.rows.length || pending.new_photos + pending.new_labels < threshold) return { pending, run: null };
    const r = await tx.query<{ id: number }>(
      `insert into learning_runs (owner_id, kind, trigger, status) values ($1, $2, $3, 'queued') returning id`,
      [ownerId, kind, { ...pending, threshold }],
    );
    const run = Number(r.rows[0]!.id);
    // The job id is written before the job exists, so a worker that finishes it at once finds the row.
    await tx.query('update learning_runs set job_id = $2 where id = $1', [run, `learn-${run}`]);
    return { pending, run };
  });
  if (decided.run === null) return { queued: false, ...decided.pending };
  const jobId = `learn-${decided.run}`;
  try {
    // No recipe: the worker that runs it chooses by what it can train (learn/recipe-choice.ts).
    await c.queue.enqueue('train_metric', { owner_id: ownerId, kind }, { jobId });
  } catch (err) {
    // Not queued (quota, queue down): the run is closed as failed so the next trigger retries.
    const message = learningMessage('learn_not_queued', { detail: (err as Error).message });
    await c.db.query(`update learning_runs set status = 'failed', decision = $2, finished_at = now() where id = $1`, [
      decided.run,
      { reason: renderLearning(message, 'en'), message },
    ]);
    return { queued: false, ...decided.pending };
  }
  return { queued: true, run_id: decided.run, job_id: jobId, ...decided.pending };
}

/**
 * Records what a training job decided on its run (a job queued by hand gets a row of its own).
 * `decision` holds the figures, the English `reason` and, in `message` or `report.message`, the
 * same sentence as a catalogue code the owner reads in their language (domain/learning-reason.ts).
 */
export async function recordRun(
  db: Queryable,
  scope: OwnerScope,
  run: { kind: Kind; jobId: string; status: Exclude<RunStatus, 'queued'>; decision: Record<string, unknown> },
): Promise<void> {
  // The loop's own row, or the row of an earlier attempt of the same job: one row per job.
  const u = await db.query(
    `update learning_runs set status = $2, decision = $3, finished_at = now() where job_id = $1 and owner_id = $4 and kind = $5`,
    [run.jobId, run.status, run.decision, scope.ownerId, run.kind],
  );
  if (u.affectedRows) return;
  await db.query(
    `insert into learning_runs (owner_id, kind, job_id, trigger, status, decision, finished_at) values ($1, $2, $3, $4, $5, $6, now())`,
    [scope.ownerId, run.kind, run.jobId, { manual: true }, run.status, run.decision],
  );
}

export interface RunRow {
  id: number;
  kind: Kind;
  status: RunStatus;
  trigger: Record<string, unknown>;
  decision: Record<string, unknown> | null;
  created_at: string;
  finished_at: string | null;
}

/** The owner's last runs of a kind, newest first. */
export async function listRuns(db: Queryable, scope: OwnerScope, kind: Kind, limit = 10): Promise<RunRow[]> {
  const r = await db.query<RunRow & { created_at: Date | string; finished_at: Date | string | null }>(
    'select id, kind, status, trigger, decision, created_at, finished_at from learning_runs where owner_id = $1 and kind = $2 order by id desc limit $3',
    [scope.ownerId, kind, limit],
  );
  return r.rows.map((x) => ({
    ...x,
    id: Number(x.id),
    created_at: new Date(x.created_at).toISOString(),
    finished_at: x.finished_at ? new Date(x.finished_at).toISOString() : null,
  }));
}

/** Operator figures for /metrics: runs per kind and status, and the newest finish of each. */
export async function runTotals(db: Queryable): Promise<{ kind: Kind; status: RunStatus; n: number; last: number | null }[]> {
  const r = await db.query<{ kind: Kind; status: RunStatus; n: number; last: Date | string | null }>(
    'select kind, status, count(*)::int as n, max(coalesce(finished_at, created_at)) as last from learning_runs group by kind, status',
  );
  return r.rows.map((x) => ({ kind: x.kind, status: x.status, n: x.n, last: x.last ? new Date(x.last).getTime() / 1000 : null }));
}

/** Records a rollback of an owner's learned version beside the runs (learn/store.ts rollback): a finished `rolled_back` row. */
export async function recordRollback(
  db: Queryable,
  scope: OwnerScope,
  run: { kind: Kind; trigger: Record<string, unknown>; decision: Record<string, unknown> },
): Promise<void> {
  await db.query(
    `insert into learning_runs (owner_id, kind, trigger, status, decision, finished_at) values ($1, $2, $3, 'rolled_back', $4, now())`,
    [scope.ownerId, run.kind, run.trigger, run.decision],
  );
}
