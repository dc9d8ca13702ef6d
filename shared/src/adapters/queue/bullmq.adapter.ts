import { Job, Queue, QueueEvents, UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import { assertJobId, type EnqueueOptions, type JobQueue, type JobRecord, type JobState } from '../../ports/queue.port.js';
import { assertHandlers, parsePayload, type JobHandlers, type JobName } from '../../domain/jobs.js';
import { isUnrecoverable, toJobError } from './job-errors.js';

export interface BullQueueOptions {
  redisUrl: string;
  /** Queue name; tests give each suite its own. */
  name: string;
  /** Redis key prefix (BullMQ's own default is 'bull'). */
  prefix?: string;
  concurrency: number;
  attempts: number;
  /** Lock length; a worker that dies is noticed after about this long and its job is retried. */
  stalledMs: number;
  backoffMs?: number;
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
  completed: 'completed', failed: 'failed', active: 'active',
  waiting: 'waiting', delayed: 'waiting', prioritized: 'waiting', 'waiting-children': 'waiting',
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

async function toRecord(job: Job): Promise<JobRecord> {
  const state = STATES[await job.getState()] ?? 'waiting';
  return {
    id: job.id!,
    name: job.name as JobName,
    state,
    data: job.data,
    ...(state === 'completed' ? { result: job.returnvalue as Record<string, unknown> } : {}),
    ...(state === 'failed' ? { error: decodeError(job.failedReason) } : {}),
    attempts: job.attemptsMade,
    created_at: new Date(job.timestamp).toISOString(),
    ...(job.finishedOn ? { finished_at: new Date(job.finishedOn).toISOString() } : {}),
  };
}

/** The distributed queue: BullMQ on Redis. API processes enqueue and wait; worker processes run handlers. */
export function createBullQueue(o: BullQueueOptions): JobQueue {
  const connection = redisConnection(o.redisUrl);
  const prefix = o.prefix ?? 'bull';
  const queue = new Queue(o.name, { connection, prefix });
  let events: QueueEvents | null = null;
  let worker: Worker | null = null;

  const get = async (id: string) => {
    const job = await Job.fromId(queue, id);
    return job ? toRecord(job) : null;
  };

  return {
    kind: 'bullmq',
    async enqueue(name, data, opts: EnqueueOptions = {}) {
      if (opts.jobId !== undefined) assertJobId(opts.jobId);
      const parsed = parsePayload(name, data);
      const job = await queue.add(name, parsed, {
        ...(opts.jobId ? { jobId: opts.jobId } : {}),
        attempts: o.attempts,
        backoff: { type: 'exponential', delay: o.backoffMs ?? 500 },
        removeOnComplete: { age: 7 * 86_400 },
        removeOnFail: { age: 30 * 86_400 },
      });
      return job.id!;
    },
    async waitFor(id, timeoutMs) {
      const job = await Job.fromId(queue, id);
      if (!job) return null;
      if (timeoutMs > 0) {
        events ??= new QueueEvents(o.name, { connection, prefix });
        await events.waitUntilReady();
        // Rejects on failure and on timeout; either way the record below says which.
        await job.waitUntilFinished(events, timeoutMs).catch(() => undefined);
      }
      return get(id);
    },
    get,
    async startWorker(h: JobHandlers) {
      assertHandlers(h);
      worker = new Worker(
        o.name,
        async (job) => {
          const name = job.name as JobName;
          try {
            const data = parsePayload(name, job.data);
            const handler = h[name] as (d: unknown, c: { id: string; attempt: number }) => Promise<unknown>;
            return await handler(data, { id: job.id!, attempt: job.attemptsMade + 1 });
          } catch (err) {
            if (isUnrecoverable(err)) throw new UnrecoverableError(encodeError(err));
            throw new Error(encodeError(err));
          }
        },
        { connection, prefix, concurrency: o.concurrency, lockDuration: o.stalledMs, stalledInterval: o.stalledMs },
      );
      await worker.waitUntilReady();
    },
    async close() {
      // Worker.close() waits for the jobs in flight before it resolves.
      await worker?.close();
      await events?.close();
      await queue.close();
    },
  };
}
