import type { JobName, JobPayload, JobResult } from '../domain/jobs.js';
import type { QueueName } from '../domain/queues.js';
import { AppError } from '../domain/errors.js';

/** Where a job stands. `waiting` includes delayed retries. */
export type JobState = 'waiting' | 'active' | 'completed' | 'failed';

export interface JobRecord<N extends JobName = JobName> {
  id: string;
  name: N;
  state: JobState;
  data: JobPayload<N>;
  result?: JobResult<N>;
  /** Catalogue code and message of the last failure, once failed for good. */
  error?: { code: string; message: string; status: number; params?: Record<string, unknown> };
  attempts: number;
  created_at: string;
  finished_at?: string;
}

export interface EnqueueOptions {
  /**
   * A fixed id deduplicates: enqueueing the same id twice yields one job, as with BullMQ's
   * `jobId`. Defaults to a fresh random id. Must match `JOB_ID`.
   */
  jobId?: string;
}

/**
 * Custom job ids: 1 to 200 letters, digits, `.`, `_` or `-`, and not all digits. BullMQ refuses
 * integer-looking ids and colons, so both adapters refuse them, and an id that works embedded
 * also works distributed.
 */
export const JOB_ID = /^(?!\d+$)[A-Za-z0-9._-]{1,200}$/;

/** Throw for a custom job id outside `JOB_ID`; queues check before storing anything. */
export function assertJobId(id: string): void {
  if (typeof id !== 'string' || !JOB_ID.test(id)) throw new Error(`invalid job id: ${JSON.stringify(String(id)).slice(0, 80)}`);
}

/** One queue as an operator sees it. `delayed` counts retries waiting for their backoff and fairness deferrals. */
export interface QueueStats {
  queue: QueueName;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  paused: boolean;
  /** Jobs one worker process runs at once on this queue (the value a pool was last set to). */
  concurrency: number;
}

/**
 * Steering for operators. Pausing stops every worker from taking new jobs of the queue (jobs in
 * flight finish); concurrency changes reach running workers within a few seconds.
 */
export interface QueueAdmin {
  stats(): Promise<QueueStats[]>;
  pause(queue: QueueName): Promise<void>;
  resume(queue: QueueName): Promise<void>;
  /** Put every failed job of the queue back to waiting; answers how many. */
  retryFailed(queue: QueueName): Promise<number>;
  /** Delete every failed job of the queue; answers how many. */
  removeFailed(queue: QueueName): Promise<number>;
  setConcurrency(queue: QueueName, concurrency: number): Promise<void>;
}

/** What a worker reports about each job run, for logs and metrics. */
export interface JobRunInfo {
  id: string;
  name: string;
  queue: QueueName;
  attempt: number;
  /** The request that enqueued the job, when there was one: joins API and worker logs. */
  requestId?: string;
  /** From enqueue (or from the end of a retry's backoff) to the start of this run. */
  waitMs: number;
}

/** Called by the worker side of a queue; both adapters call them the same way. */
export interface JobHooks {
  started?(info: JobRunInfo): void;
  finished?(info: JobRunInfo & { outcome: 'completed' | 'retry' | 'failed'; runMs: number; error?: string }): void;
}

/**
 * The job queue. Adapters: an in-process queue that keeps its jobs in the database (embedded)
 * and BullMQ on Redis (distributed). Both run the same handlers from the one job catalogue.
 */
export interface JobQueue {
  enqueue<N extends JobName>(name: N, data: JobPayload<N>, opts?: EnqueueOptions): Promise<string>;
  /**
   * Wait until the job completes or fails, at most `timeoutMs`. Returns the record either way;
   * a record still `waiting`/`active` means the caller should answer 202.
   */
  waitFor(id: string, timeoutMs: number): Promise<JobRecord | null>;
  get(id: string): Promise<JobRecord | null>;
  /** Start consuming jobs with these handlers (workers and embedded mode only). */
  startWorker(handlers: import('../domain/jobs.js').JobHandlers): Promise<void>;
  /** Stop taking jobs, let the ones in flight finish, then release connections. */
  close(): Promise<void>;
  readonly kind: 'inprocess' | 'bullmq';
  /** Queue listing and steering (admin routes, metrics). */
  readonly admin: QueueAdmin;
}

/**
 * Raised by `enqueue` when the owner already has `limit` jobs waiting or running. The API turns
 * it into 429 with Retry-After; nothing was stored.
 */
export class QueueQuotaError extends AppError {
  constructor(limit: number, retryAfterS: number) {
    super(429, 'queue_quota_exceeded', { limit, retry_after: retryAfterS }, { 'Retry-After': String(retryAfterS) });
  }
}

/** Fairness and quota settings every adapter honours the same way. */
export interface FairnessOptions {
  /** Jobs of one owner running at once per queue, across all workers; 0 = no cap. */
  inflightCap?: number;
  /**
   * Units of work of one owner waiting or running, all queues together; 0 = no quota. A unit is
   * one job, except that every row of one fruit batch is the same unit (`quotaUnit`): a batch of
   * 500 photos counts once, and never locks its owner's identify out (issue 21).
   */
  queuedQuota?: number;
}

/** The quota unit a job belongs to: its batch for batch rows, else the job itself. */
export function quotaUnit(data: unknown, jobId: string): string {
  const batch = (data as { batch_id?: unknown } | null)?.batch_id;
  return typeof batch === 'string' ? `batch-${batch}` : jobId;
}
