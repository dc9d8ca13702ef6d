import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { scopeOfJob } from '../../access/owner-scope.js';
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
import { assertHandlers, jobNames, parsePayload, type JobHandlers } from '../../domain/jobs.js';
import { QUEUES, jobsOn, type QueueName } from '../../domain/queues.js';
import { currentTrace, withTrace } from '../../observability/context.js';
import { jobsRepo, type JobRow as Row } from '../../repos/jobs.repo.js';
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
    return jobsRepo.claim(db, names, o.fairness?.inflightCap ?? 0);
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
      await jobsRepo.complete(db, row.id, result ?? {});
      o.hooks?.finished?.({ ...info, outcome: 'completed', runMs: Date.now() - t0 });
    } catch (err) {
      const final = isUnrecoverable(err) || row.attempts >= o.attempts;
      const delay = (o.backoffMs ?? 500) * 2 ** (row.attempts - 1);
      if (final) await jobsRepo.fail(db, row.id, toJobError(err));
      else await jobsRepo.retryLater(db, row.id, toJobError(err), delay);
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
    // A job naming no owner (none, or an empty id) counts against no one's quota.
    if (!limit || typeof owner !== 'string' || !owner) return;
    const units = await jobsRepo.ownerUnits(db, scopeOfJob({ owner_id: owner }), id, unit);
    if (!units?.mine && (units?.n ?? 0) >= limit) throw new QueueQuotaError(limit, 10);
  }

  const get = async (id: string) => {
    const row = await jobsRepo.get(db, id);
    return row ? toRecord(row) : null;
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
      await jobsRepo.insert(db, { id, name, data: parsed, maxAttempts: o.attempts, requestId: currentTrace().requestId ?? null });
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
      await jobsRepo.requeueActive(db);
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
