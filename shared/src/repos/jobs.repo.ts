/**
 * Statements on `jobs`: the embedded (in-process) queue's jobs, one row each, so they survive a
 * restart (BullMQ keeps its own in Redis). The queue's logic (which queue, fairness cap, retry
 * delay, when a failure is final) is the adapter's, shared/src/adapters/queue/inprocess.adapter.ts;
 * these statements only carry it out.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { JobName } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';
import type { JobRecord } from '../ports/queue.port.js';

/** One job row as the database holds it. */
export interface JobRow {
  id: string;
  name: JobName;
  state: JobRecord['state'];
  data: unknown;
  result: unknown;
  error: unknown;
  attempts: number;
  created_at: Date | string;
  finished_at: Date | string | null;
  request_id: string | null;
  run_after: Date | string;
}

/** A row of {@link jobsRepo.countsByState}: jobs of one name in one state, waiting ones split by whether they are due. */
export interface JobStateCount {
  name: string;
  state: string;
  delayed: boolean;
  n: number;
}

export const jobsRepo = {
  /**
   * Marks the oldest due waiting job among `names` active and counts the attempt, skipping rows
   * another claimer holds (`for update skip locked`) and, when `inflightCap` > 0, jobs whose owner
   * already has that many active among `names`. Null when none is due.
   */
  async claim(db: Queryable, names: readonly string[], inflightCap: number): Promise<JobRow | null> {
    const r = await db.query<JobRow>(
      `update jobs set state = 'active', attempts = attempts + 1
        where id = (select j.id from jobs j
                     where j.state = 'waiting' and j.run_after <= now() and j.name = any($1::text[])
                       and ($2::int = 0 or j.data->>'owner_id' is null
                            or (select count(*) from jobs a where a.state = 'active' and a.name = any($1::text[])
                                  and a.data->>'owner_id' = j.data->>'owner_id') < $2::int)
                     order by j.created_at limit 1 for update skip locked)
        returning *`,
      [names, inflightCap],
    );
    return r.rows[0] ?? null;
  },

  /** The job completed with `result`. */
  async complete(db: Queryable, id: string, result: unknown): Promise<void> {
    await db.query(`update jobs set state = 'completed', result = $2, finished_at = now() where id = $1`, [id, result]);
  },

  /** The job failed for good with `error`. */
  async fail(db: Queryable, id: string, error: unknown): Promise<void> {
    await db.query(`update jobs set state = 'failed', error = $2, finished_at = now() where id = $1`, [id, error]);
  },

  /** The job failed and waits again, due `delayMs` milliseconds from now, keeping `error`. */
  async retryLater(db: Queryable, id: string, error: unknown, delayMs: number): Promise<void> {
    await db.query(`update jobs set state = 'waiting', error = $2, run_after = now() + ($3 || ' milliseconds')::interval where id = $1`, [
      id,
      error,
      String(delayMs),
    ]);
  },

  /**
   * The owner's queued units (a batch's jobs count once, as `batch-<batch_id>`) waiting or active,
   * and whether job `id` or unit `unit` is already among them. The owner is the scope of the job
   * being queued (scopeOfJob, shared/src/access/owner-scope.ts).
   */
  async ownerUnits(db: Queryable, owner: OwnerScope, id: string, unit: string): Promise<{ n: number; mine: boolean } | null> {
    const r = await db.query<{ n: number; mine: boolean }>(
      `select count(distinct coalesce('batch-' || (data->>'batch_id'), id))::int as n,
              bool_or(id = $2 or coalesce('batch-' || (data->>'batch_id'), id) = $3) as mine
         from jobs where state in ('waiting', 'active') and data->>'owner_id' = $1`,
      [owner.ownerId, id, unit],
    );
    return r.rows[0] ?? null;
  },

  /** One job by id, or null. */
  async get(db: Queryable, id: string): Promise<JobRow | null> {
    const r = await db.query<JobRow>('select * from jobs where id = $1', [id]);
    return r.rows[0] ?? null;
  },

  /** Stores a waiting job; a job with that id already there is left as it is. */
  async insert(
    db: Queryable,
    j: { id: string; name: string; data: unknown; maxAttempts: number; requestId: string | null },
  ): Promise<void> {
    await db.query(
      `insert into jobs (id, name, state, data, max_attempts, request_id) values ($1, $2, 'waiting', $3, $4, $5) on conflict (id) do nothing`,
      [j.id, j.name, j.data, j.maxAttempts, j.requestId],
    );
  },

  /** Every active job back to waiting (they were cut off by the end of the previous process). */
  async requeueActive(db: Queryable): Promise<void> {
    await db.query(`update jobs set state = 'waiting' where state = 'active'`);
  },

  /** Jobs counted by name, state and, for waiting ones, whether they are not due yet. */
  async countsByState(db: Queryable): Promise<JobStateCount[]> {
    const r = await db.query<JobStateCount>(
      `select name, state, (state = 'waiting' and run_after > now()) as delayed, count(*)::int as n
           from jobs group by 1, 2, 3`,
    );
    return r.rows;
  },

  /** Failed jobs among `names` waiting again from scratch, due now; answers how many. */
  async retryFailed(db: Queryable, names: readonly string[]): Promise<number> {
    const r = await db.query(
      `update jobs set state = 'waiting', attempts = 0, error = null, finished_at = null, run_after = now()
          where state = 'failed' and name = any($1::text[])`,
      [names],
    );
    return r.affectedRows ?? 0;
  },

  /** Failed jobs among `names` deleted; answers how many. */
  async removeFailed(db: Queryable, names: readonly string[]): Promise<number> {
    const r = await db.query(`delete from jobs where state = 'failed' and name = any($1::text[])`, [names]);
    return r.affectedRows ?? 0;
  },
};

export type JobsRepo = typeof jobsRepo;
