import type { JobName, JobPayload, JobResult } from '../domain/jobs.js';

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
}
