import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../ports/database.port.js';
import {
  assertJobId,
  QueueQuotaError,
  quotaUnit,
  type EnqueueOptions,
  type FairnessOptions,
  type JobHooks,
  type JobQueue,
  type JobRecord,
} from '../../ports/queue.port.js';
import { assertHandlers, jobNames, parsePayload, type JobHandlers, type JobName } from '../../domain/jobs.js';
import { QUEUES, jobsOn, type QueueName } from '../../domain/queues.js';
import { currentTrace, withTrace } from '../../observability/context.js';
import { isUnrecoverable, toJobError } from './job-errors.js';
import { inProcessAdmin } from './inprocess-admin.js';

export interface InProcessQueueOptions {
  /** Default jobs run at once per queue. */
  concurrency: number;
  /** Per-queue overrides of `concurrency`. */
  queueConcurrency?: Partial<Record<QueueName, number>>;
  /** Queues this process runs; default all. */
  workerQueues?: readonly QueueName[];
  fairness?: FairnessOptions;
  hooks?: JobHooks;
  attempts: number;
  /** Base delay before a retry; doubled on each attempt. */
  backoffMs?: number;
  /** How often idle workers look for due retries. */
  pollMs?: number;
  /**
   * Told when the database fails under the queue itself (claiming a job, recording its outcome).
   * The queue goes on: the next poll claims again, and a job whose outcome could not be written
   * stays active until the restart recovery takes it back. Never thrown: no caller would catch it.
   */
  onError?: (err: unknown, where: 'claim' | 'record') => void;
}

interface Row {
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

const toRecord = (r: Row): JobRecord => ({
  id: r.id,
  name: r.name,
  state: r.state,
  data: r.data as JobRecord['data'],
  // As under BullMQ: a result only once completed, an error only once failed for good (a job
  // that failed and then succeeded on a retry still has its old error in the row).
  ...(r.state === 'completed' && r.result ? { result: r.result as Record<string, unknown> } : {}),
  ...(r.state === 'failed' && r.error ? { error: r.error as JobRecord['error'] } : {}),
  attempts: r.attempts,
  created_at: new Date(r.created_at).toISOString(),
  ...(r.finished_at ? { finished_at: new Date(r.finished_at).toISOString() } : {}),
});

/**
 * The embedded queue: jobs are rows in the database and run in this process. Rows survive a
 * crash, and a job found `active` at start was interrupted, so it goes back to `waiting` and
 * runs again — which is why handlers must be idempotent, exactly as under BullMQ.
 */
export function createInProcessQueue(db: Database, o: InProcessQueueOptions): JobQueue {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let handlers: JobHandlers | null = null;
  let closing = false;
  let timer: NodeJS.Timeout | null = null;

  const state = inProcessAdmin(db, o);
  const inFlight = new Map<QueueName, Set<Promise<void>>>(QUEUES.map((q) => [q, new Set()]));
  const allInFlight = () => [...inFlight.values()].flatMap((s) => [...s]);
  const served = o.workerQueues ?? QUEUES;

  /**
   * Take the oldest due job of one queue, skipping owners who already have `inflightCap` jobs
   * running on it (fairness: one account's backlog never holds every slot).
   */
  async function claim(q: QueueName): Promise<Row | null> {
    const names = jobsOn(q, jobNames);
    if (!names.length) return null;
    const r = await db.query<Row>(
      `update jobs set state = 'active', attempts = attempts + 1
        where id = (select j.id from jobs j
                     where j.state = 'waiting' and j.run_after <= now() and j.name = any($1::text[])
                       and ($2::int = 0 or j.data->>'owner_id' is null
                            or (select count(*) from jobs a where a.state = 'active' and a.name = any($1::text[])
                                  and a.data->>'owner_id' = j.data->>'owner_id') < $2::int)
                     order by j.created_at limit 1 for update skip locked)
        returning *`,
      [names, o.fairness?.inflightCap ?? 0],
    );
    return r.rows[0] ?? null;
  }

  async function run(q: QueueName, row: Row): Promise<void> {
    const info = {
      id: row.id,
      name: row.name,
      queue: q,
      attempt: row.attempts,
      requestId: row.request_id ?? undefined,
      waitMs: Math.max(0, Date.now() - Math.max(new Date(row.created_at).getTime(), new Date(row.run_after).getTime())),
    };
    o.hooks?.started?.(info);
    const t0 = Date.now();
    try {
      const data = parsePayload(row.name, row.data);
      const handler = handlers![row.name] as (d: unknown, c: { id: string; attempt: number }) => Promise<unknown>;
      const result = await withTrace({ requestId: info.requestId, jobId: row.id }, () =>
        handler(data, { id: row.id, attempt: row.attempts }),
      );
      await db.query(`update jobs set state = 'completed', result = $2, finished_at = now() where id = $1`, [row.id, result ?? {}]);
      o.hooks?.finished?.({ ...info, outcome: 'completed', runMs: Date.now() - t0 });
    } catch (err) {
      const final = isUnrecoverable(err) || row.attempts >= o.attempts;
      const delay = (o.backoffMs ?? 500) * 2 ** (row.attempts - 1);
      await db.query(
        final
          ? `update jobs set state = 'failed', error = $2, finished_at = now() where id = $1`
          : `update jobs set state = 'waiting', error = $2, run_after = now() + ($3 || ' milliseconds')::interval where id = $1`,
        final ? [row.id, toJobError(err)] : [row.id, toJobError(err), String(delay)],
      );
      o.hooks?.finished?.({
        ...info,
        outcome: final ? 'failed' : 'retry',
        runMs: Date.now() - t0,
        error: String((err as Error)?.message ?? err),
      });
    }
    events.emit(row.id);
  }

  // One claimer at a time, or two pumps could both see a free slot and overshoot concurrency.
  // Kept as a promise so close() can wait for a claim that is on its way back from the database.
  let pumping: Promise<void> | null = null;
  function pump(): Promise<void> {
    pumping ??= (async () => {
      for (const q of served) {
        const mine = inFlight.get(q)!;
        while (handlers && !closing && !state.paused.has(q) && mine.size < state.concurrency(q)) {
          const row = await claim(q);
          if (!row) break;
          const p = run(q, row)
            .catch((err: unknown) => o.onError?.(err, 'record'))
            .finally(() => {
              mine.delete(p);
              void pump();
            });
          mine.add(p);
        }
      }
    })()
      .catch((err: unknown) => o.onError?.(err, 'claim'))
      .finally(() => {
        pumping = null;
      });
    return pumping;
  }

  /**
   * Quota: refuse before storing when the owner already has `queuedQuota` units waiting or
   * running; a job of a unit already counted (another row of the same batch) always goes in.
   */
  async function checkQuota(owner: unknown, id: string, unit: string): Promise<void> {
    const limit = o.fairness?.queuedQuota ?? 0;
    if (!limit || typeof owner !== 'string') return;
    const r = await db.query<{ n: number; mine: boolean }>(
      `select count(distinct coalesce('batch-' || (data->>'batch_id'), id))::int as n,
              bool_or(id = $2 or coalesce('batch-' || (data->>'batch_id'), id) = $3) as mine
         from jobs where state in ('waiting', 'active') and data->>'owner_id' = $1`,
      [owner, id, unit],
    );
    if (!r.rows[0]?.mine && (r.rows[0]?.n ?? 0) >= limit) throw new QueueQuotaError(limit, 10);
  }

  const get = async (id: string) => {
    const r = await db.query<Row>('select * from jobs where id = $1', [id]);
    return r.rows[0] ? toRecord(r.rows[0]) : null;
  };

  return {
    kind: 'inprocess',
    admin: {
      ...state.admin,
      // Resuming or a larger pool frees slots now, not at the next poll.
      resume: async (q) => void (await state.admin.resume(q), void pump()),
      setConcurrency: async (q, n) => void (await state.admin.setConcurrency(q, n), void pump()),
      retryFailed: async (q) => {
        const n = await state.admin.retryFailed(q);
        void pump();
        return n;
      },
    },
    async enqueue(name, data, opts: EnqueueOptions = {}) {
      if (opts.jobId !== undefined) assertJobId(opts.jobId);
      const parsed = parsePayload(name, data);
      const id = opts.jobId ?? randomUUID();
      await checkQuota((parsed as { owner_id?: unknown }).owner_id, id, quotaUnit(parsed, id));
      await db.query(
        `insert into jobs (id, name, state, data, max_attempts, request_id) values ($1, $2, 'waiting', $3, $4, $5) on conflict (id) do nothing`,
        [id, name, parsed, o.attempts, currentTrace().requestId ?? null],
      );
      void pump();
      return id;
    },
    waitFor(id, timeoutMs) {
      const done = (r: JobRecord | null) => !r || r.state === 'completed' || r.state === 'failed';
      return new Promise((resolve, reject) => {
        let settled = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          clearTimeout(t);
          events.off(id, check);
          get(id).then(resolve, reject);
        };
        // Listen before the first look, so a job finishing in between is not missed.
        // A retry also emits; only a terminal state ends the wait.
        const check = () => void get(id).then((r) => done(r) && finish(), reject);
        const t = setTimeout(finish, timeoutMs);
        events.on(id, check);
        check();
      });
    },
    get,
    async startWorker(h) {
      assertHandlers(h);
      handlers = h;
      // Anything still marked active was cut off by a crash or kill of the previous process.
      await db.query(`update jobs set state = 'waiting' where state = 'active'`);
      timer = setInterval(() => void pump(), o.pollMs ?? 250);
      timer.unref();
      void pump();
    },
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      // A claim in progress may still start a job, so wait until neither is left.
      while (pumping || allInFlight().length) await Promise.allSettled([pumping, ...allInFlight()]);
    },
  };
}
