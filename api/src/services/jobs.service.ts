import { createHash } from 'node:crypto';
import { requestScope } from '../http/request-scope.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { JobName, JobPayload } from '../../../shared/src/domain/jobs.js';
import type { JobQueue, JobRecord } from '../../../shared/src/ports/queue.port.js';
import { messages, type MessageCode } from '../../../shared/src/domain/messages.js';

/** What a route gets back from a job: its result, or the job's id to poll when it is still running. */
export type JobOutcome = { done: true; result: Record<string, unknown>; job_id: string } | { done: false; job: PublicJob };

export interface PublicJob {
  job_id: string;
  name: JobName;
  status: JobRecord['state'];
  attempts: number;
  created_at: string;
  finished_at?: string;
  result?: Record<string, unknown>;
  error?: { code: string; status: number };
  poll: string;
}

const ownerOf = (r: JobRecord) => (r.data as { owner_id?: string }).owner_id;

export function toPublicJob(r: JobRecord): PublicJob {
  return {
    job_id: r.id,
    name: r.name,
    status: r.state,
    attempts: r.attempts,
    created_at: r.created_at,
    ...(r.finished_at ? { finished_at: r.finished_at } : {}),
    ...(r.state === 'completed' ? { result: r.result ?? {} } : {}),
    ...(r.state === 'failed' && r.error ? { error: { code: r.error.code, status: r.error.status } } : {}),
    poll: `/api/jobs/${r.id}`,
  };
}

/** A failed job's stored error, turned back into the client error it stands for; internals stay hidden. */
export function jobFailure(r: JobRecord): AppError {
  const e = r.error;
  if (e && e.status < 500 && e.code in messages) return new AppError(e.status, e.code as MessageCode, e.params ?? {});
  return ERRORS.internal();
}

/** Jobs an `Idempotency-Key` applies to: enrolment and identification of every kind. */
const IDEMPOTENT_JOBS = new Set<JobName>(['enroll', 'identify', 'identify_auto', 'video'] as JobName[]);

/**
 * With an `Idempotency-Key` header, the job id is derived from (owner, job name, key): a retry
 * enqueues the same id, which the queue deduplicates, so the client gets the first request's job
 * and its result (or its 202 to poll) instead of a second tree. Keys live as long as the queue
 * keeps the job (7 days completed in BullMQ).
 */
function idempotentJobId(name: JobName, payload: unknown): string | undefined {
  const key = requestScope.getStore()?.idempotencyKey;
  const owner = (payload as { owner_id?: string }).owner_id;
  if (!key || !owner || !IDEMPOTENT_JOBS.has(name)) return undefined;
  return `idem-${createHash('sha256').update(`${owner}\n${name}\n${key}`).digest('hex').slice(0, 40)}`;
}

/**
 * Enqueue-and-wait, the request flow of the design card: the API waits up to JOB_WAIT_MS for the
 * worker; a job that takes longer keeps running and the client polls `/api/jobs/{id}`.
 */
export interface JobsDeps {
  queue: Pick<JobQueue, 'enqueue' | 'waitFor' | 'get'>;
  /** JOB_WAIT_MS: how long a request waits for its job before answering 202. */
  waitMs: number;
}

export function createJobsService({ queue, waitMs }: JobsDeps) {
  return {
    async run<N extends JobName>(name: N, payload: JobPayload<N>, jobId?: string): Promise<JobOutcome> {
      jobId ??= idempotentJobId(name, payload);
      const id = await queue.enqueue(name, payload, jobId ? { jobId } : {});
      const rec = await queue.waitFor(id, waitMs);
      if (!rec) throw ERRORS.internal();
      if (rec.state === 'failed') throw jobFailure(rec);
      if (rec.state === 'completed') return { done: true, result: rec.result ?? {}, job_id: id };
      return { done: false, job: toPublicJob(rec) };
    },

    /** A job as its owner sees it; someone else's job and a missing one are the same 404. */
    async get(id: string, accountId: string): Promise<PublicJob> {
      const rec = await queue.get(id);
      if (!rec || ownerOf(rec) !== accountId) throw ERRORS.notFound();
      return toPublicJob(rec);
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
