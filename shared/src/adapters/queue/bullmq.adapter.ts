import { Redis } from 'ioredis';
import { DelayedError, Job, Queue, QueueEvents, UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import {
  assertJobId,
  type EnqueueOptions,
  type FairnessOptions,
  type JobHooks,
  type JobQueue,
  type JobRecord,
  type JobState,
  quotaUnit,
} from '../../ports/queue.port.js';
import { assertHandlers, parsePayload, type JobHandlers, type JobName } from '../../domain/jobs.js';
import { QUEUES, queueOf, type QueueName } from '../../domain/queues.js';
import { currentTrace, withTrace } from '../../observability/context.js';
import { isUnrecoverable, toJobError } from './job-errors.js';
import { bullAdmin, ownerQuota } from './bullmq-admin.js';

export interface BullQueueOptions {
  redisUrl: string;
  /** Base name; each queue is `<name>-<queue>` (tests give each suite its own base). */
  name: string;
  /** Redis key prefix (BullMQ's own default is 'bull'). */
  prefix?: string;
  /** Default jobs per worker process per queue. */
  concurrency: number;
  /** Per-queue overrides of `concurrency`. */
  queueConcurrency?: Partial<Record<QueueName, number>>;
  /** Queues `startWorker` serves; default all. */
  workerQueues?: readonly QueueName[];
  attempts: number;
  /** Lock length; a worker that dies is noticed after about this long and its job is retried. */
  stalledMs: number;
  backoffMs?: number;
  fairness?: FairnessOptions;
  hooks?: JobHooks;
  /** How often workers pick up a concurrency changed by an operator; default 2 s. */
  steerPollMs?: number;
}

export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    // Required by BullMQ for blocking connections.
    maxRetriesPerRequest: null,
  };
}

const STATES: Record<string, JobState> = {
  completed: 'completed',
  failed: 'failed',
  active: 'active',
  waiting: 'waiting',
  delayed: 'waiting',
  prioritized: 'waiting',
  'waiting-children': 'waiting',
};

/** Failure details travel inside the error message, because BullMQ stores only a string. */
const encodeError = (err: unknown) => JSON.stringify(toJobError(err));
function decodeError(reason: string | undefined): JobRecord['error'] | undefined {
  if (!reason) return undefined;
  try {
    return JSON.parse(reason) as JobRecord['error'];
  } catch {
    return { code: 'internal', message: reason, status: 500 };
  }
}

/** The request id rides in the job data under this key; the catalogue's zod schemas strip it before handlers see it. */
const RID = '_rid';

/**
 * `state` must be read before the job's hash: a job fetched while active and then asked its
 * state after finishing would say `completed` with no return value (seen once in CI).
 */
function toRecord(job: Job, state: JobRecord['state']): JobRecord {
  const { [RID]: _rid, ...data } = job.data as Record<string, unknown>;
  return {
    id: job.id!,
    name: job.name as JobName,
    state,
    data: data as JobRecord['data'],
    ...(state === 'completed' ? { result: job.returnvalue as Record<string, unknown> } : {}),
    ...(state === 'failed' ? { error: decodeError(job.failedReason) } : {}),
    attempts: job.attemptsMade,
    created_at: new Date(job.timestamp).toISOString(),
    ...(job.finishedOn ? { finished_at: new Date(job.finishedOn).toISOString() } : {}),
  };
}

const ownerOf = (data: unknown) => (data as { owner_id?: unknown })?.owner_id as string | undefined;

/**
 * Fairness: whether this job may run now, or must step aside because its owner already has
 * `cap` jobs running on this queue. Every worker sees the same active list and keeps the
 * owner's `cap` earliest-started jobs, so two workers never both defer (or both keep) the same pair.
 */
async function ownerHasRoom(queue: Queue, job: Job, cap: number): Promise<boolean> {
  const owner = ownerOf(job.data);
  if (!cap || !owner) return true;
  const active = await queue.getActive(0, 999);
  const mine = active
    .filter((j) => ownerOf(j.data) === owner)
    .sort((a, b) => (a.processedOn ?? 0) - (b.processedOn ?? 0) || String(a.id).localeCompare(String(b.id)));
  return mine.length <= cap || mine.slice(0, cap).some((j) => j.id === job.id);
}

/** The distributed queue: one BullMQ queue per job kind on Redis. API processes enqueue and wait; workers run handlers. */
export function createBullQueue(o: BullQueueOptions): JobQueue {
  const connection = redisConnection(o.redisUrl);
  const prefix = o.prefix ?? 'bull';
  const fullName = (q: QueueName) => `${o.name}-${q}`;
  // Fail fast instead of queueing commands while Redis is away: the API answers 503 at once.
  const queues = Object.fromEntries(
    QUEUES.map((q) => [q, new Queue(fullName(q), { connection: { ...connection, enableOfflineQueue: false }, prefix })]),
  ) as Record<QueueName, Queue>;
  // Outages are answered per call (503); without listeners BullMQ would print every reconnect error.
  for (const q of QUEUES) queues[q].on('error', () => undefined);
  const events = new Map<QueueName, QueueEvents>();
  const workers = new Map<QueueName, Worker>();
  const concurrencyOf = (q: QueueName) => o.queueConcurrency?.[q] ?? o.concurrency;
  // Our own keys (quota sets, the steering hash) on one connection that also fails fast.
  const client = new Redis({ ...(connection as object), maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  client.on('error', () => undefined);
  // Connected on first use; while Redis is away, callers wait up to 2 s for it, then fail (503),
  // and ioredis keeps reconnecting in the background.
  const redis = async () => {
    if (client.status === 'wait') void client.connect().catch(() => undefined);
    for (let i = 0; i < 40 && client.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 50));
    if (client.status !== 'ready') throw new Error('Connection is closed: redis is not ready');
    return client;
  };
  const quota = ownerQuota(redis, `${prefix}:${o.name}:owner-jobs:`, o.fairness?.queuedQuota ?? 0);
  const admin = bullAdmin({
    queues,
    workers,
    concurrencyOf,
    redis,
    steerKey: `${prefix}:${o.name}:concurrency`,
    pollMs: o.steerPollMs ?? 2000,
  });

  const find = async (id: string) => {
    const found = await Promise.all(QUEUES.map((q) => Job.fromId(queues[q], id).then((j) => (j ? ([q, j] as const) : null))));
    return found.find(Boolean) ?? null;
  };
  const get = async (id: string) => {
    const hit = await find(id);
    if (!hit) return null;
    const state = STATES[await hit[1].getState()] ?? 'waiting';
    const fresh = state === 'completed' || state === 'failed' ? await Job.fromId(queues[hit[0]], id) : hit[1];
    return toRecord(fresh ?? hit[1], state);
  };
  quota.attach(get);

  function processor(q: QueueName, h: JobHandlers) {
    return async (job: Job, token?: string) => {
      if (!(await ownerHasRoom(queues[q], job, o.fairness?.inflightCap ?? 0))) {
        // Step aside for other accounts; jitter keeps two deferred jobs from returning in lockstep.
        await job.moveToDelayed(Date.now() + 150 + Math.floor(Math.random() * 250), token);
        throw new DelayedError();
      }
      const name = job.name as JobName;
      const info = {
        id: job.id!,
        name,
        queue: q,
        attempt: job.attemptsMade + 1,
        requestId: (job.data as Record<string, string>)[RID],
        waitMs: Math.max(0, (job.processedOn ?? Date.now()) - job.timestamp),
      };
      o.hooks?.started?.(info);
      const t0 = Date.now();
      try {
        const data = parsePayload(name, job.data);
        const handler = h[name] as (d: unknown, c: { id: string; attempt: number }) => Promise<unknown>;
        const result = await withTrace({ requestId: info.requestId, jobId: info.id }, () =>
          handler(data, { id: job.id!, attempt: info.attempt }),
        );
        o.hooks?.finished?.({ ...info, outcome: 'completed', runMs: Date.now() - t0 });
        await quota.release(ownerOf(job.data), job.id!, quotaUnit(job.data, job.id!));
        return result;
      } catch (err) {
        const final = isUnrecoverable(err) || info.attempt >= o.attempts;
        o.hooks?.finished?.({
          ...info,
          outcome: final ? 'failed' : 'retry',
          runMs: Date.now() - t0,
          error: String((err as Error)?.message ?? err),
        });
        if (final) await quota.release(ownerOf(job.data), job.id!, quotaUnit(job.data, job.id!));
        if (isUnrecoverable(err)) throw new UnrecoverableError(encodeError(err));
        throw new Error(encodeError(err), { cause: err });
      }
    };
  }

  return {
    kind: 'bullmq',
    admin,
    async enqueue(name, data, opts: EnqueueOptions = {}) {
      if (opts.jobId !== undefined) assertJobId(opts.jobId);
      const parsed = parsePayload(name, data);
      const owner = ownerOf(parsed);
      const id = opts.jobId ?? crypto.randomUUID();
      await quota.reserve(owner, id, quotaUnit(parsed, id));
      const { requestId } = currentTrace();
      const job = await queues[queueOf(name)].add(name, requestId ? { ...parsed, [RID]: requestId } : parsed, {
        jobId: id,
        attempts: o.attempts,
        backoff: { type: 'exponential', delay: o.backoffMs ?? 500 },
        removeOnComplete: { age: 7 * 86_400 },
        removeOnFail: { age: 30 * 86_400 },
      });
      // An id that deduplicated onto a job already finished holds no quota.
      if (job.finishedOn) await quota.release(owner, id, quotaUnit(parsed, id));
      return job.id!;
    },
    async waitFor(id, timeoutMs) {
      const hit = await find(id);
      if (!hit) return null;
      const [q, job] = hit;
      if (timeoutMs > 0) {
        let ev = events.get(q);
        if (!ev) {
          events.set(q, (ev = new QueueEvents(fullName(q), { connection, prefix })));
          ev.on('error', () => undefined);
        }
        await ev.waitUntilReady();
        // Rejects on failure and on timeout; either way the record below says which.
        await job.waitUntilFinished(ev, timeoutMs).catch(() => undefined);
      }
      return get(id);
    },
    get,
    async startWorker(h: JobHandlers) {
      assertHandlers(h);
      for (const q of o.workerQueues ?? QUEUES) {
        const w = new Worker(fullName(q), processor(q, h), {
          connection,
          prefix,
          concurrency: concurrencyOf(q),
          lockDuration: o.stalledMs,
          stalledInterval: o.stalledMs,
        });
        // Connection errors are retried by BullMQ itself; without a listener they would crash the process.
        w.on('error', () => undefined);
        workers.set(q, w);
      }
      await Promise.all([...workers.values()].map((w) => w.waitUntilReady()));
      await admin.startSteering();
    },
    async close() {
      admin.stopSteering();
      // Worker.close() waits for the jobs in flight before it resolves.
      await Promise.all([...workers.values()].map((w) => w.close()));
      await Promise.all([...events.values()].map((e) => e.close()));
      await Promise.all(QUEUES.map((q) => queues[q].close()));
      if (client.status !== 'wait') client.disconnect();
    },
  };
}
