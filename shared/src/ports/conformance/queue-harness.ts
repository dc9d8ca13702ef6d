/**
 * What the queue conformance suites (queue.conformance.ts, queue-pools.conformance.ts) and the
 * adapter specs share: how a suite opens a fresh namespace, handlers for every job, small timing
 * helpers.
 */
import { jobNames, type JobContext, type JobData, type JobHandlers } from '../../domain/jobs.js';
import type { FairnessOptions, JobQueue } from '../queue.port.js';
import type { QueueName } from '../../domain/queues.js';

export interface QueueOpenOptions {
  /** Runs per job before it fails for good; default 3. */
  attempts?: number;
  /** Jobs one worker runs at once; default 1. */
  concurrency?: number;
  /** Per-queue overrides of `concurrency`. */
  queueConcurrency?: Partial<Record<QueueName, number>>;
  /** Queues `startWorker` serves; default all. */
  workerQueues?: QueueName[];
  /** Per-owner in-flight cap and queued quota; default none. */
  fairness?: FairnessOptions;
}

/** One queue's worth of state (a BullMQ queue name, a jobs table), empty when made. */
export interface QueueNamespace {
  /** A queue object on this namespace, as one process would hold it. Retries back off quickly. */
  open(opts?: QueueOpenOptions): Promise<JobQueue>;
  /**
   * Let a worker claim the waiting job `id` and then die mid-run: no result, no release. Queues
   * opened afterwards behave as a restarted process would.
   */
  crashWhileActive(id: string): Promise<void>;
  /** Remove everything the namespace holds; every queue from it is closed by then. */
  destroy(): Promise<void>;
}

/** What the conformance suite needs from an adapter. */
export interface QueueAdapterFactory {
  /** A fresh, empty namespace; each test gets its own. */
  namespace(): Promise<QueueNamespace>;
  /**
   * Whether an API process and separate worker processes share one namespace (BullMQ). The
   * in-process queue serves one process by design: its waitFor hears only its own worker.
   */
  splitApiAndWorker: boolean;
}

type AnyHandler = (data: unknown, ctx: JobContext) => Promise<Record<string, unknown>>;

/** Handlers for every job; any job the test did not plan for fails loudly. */
export function handlers(reindex: (data: JobData<'reindex'>, ctx: JobContext) => Promise<Record<string, unknown>>): JobHandlers {
  const unexpected: AnyHandler = async (_d, ctx) => {
    throw new Error(`unexpected job ${ctx.id}`);
  };
  // Built from the catalogue, so a job added there is covered here without editing this file.
  return { ...Object.fromEntries(jobNames.map((n) => [n, unexpected])), reindex } as JobHandlers;
}

export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
