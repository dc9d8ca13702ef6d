import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { isQueueName, type QueueName } from '../../../shared/src/domain/queues.js';
import type { QueueStats } from '../../../shared/src/ports/queue.port.js';
import { workerStatusRepo } from '../../../shared/src/repos/worker-status.repo.js';

export type DependencyState = 'up' | 'down';
export interface RecognitionInfo {
  model: { name: string; version: string };
  provider: 'cuda' | 'cpu';
}

/** How long a health probe may take before its dependency counts as down. */
const PROBE_MS = 2000;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error('probe timed out')), ms)))]).finally(
    () => clearTimeout(t),
  );
}

const probe = (p: () => Promise<unknown>): Promise<DependencyState> =>
  within(p(), PROBE_MS).then(
    () => 'up' as const,
    () => 'down' as const,
  );

/**
 * Operations: what health reports (dependencies, the model the workers loaded), the metrics
 * text, and the operator's queue steering. Reads worker state from the database; never loads
 * worker code.
 */
export function createOpsService(c: Container) {
  const queue = (name: string): QueueName => {
    if (!isQueueName(name)) throw new AppError(404, 'queue_unknown');
    return name;
  };
  let lastRecognition: RecognitionInfo | null = null;

  return {
    /** Each dependency of this deployment, probed now. Embedded mode has only its database. */
    async dependencies(): Promise<Record<string, DependencyState>> {
      const distributed = c.config.MODE === 'distributed';
      const [database, redis, blobs] = await Promise.all([
        probe(() => workerStatusRepo.ping(c.db)),
        distributed ? probe(() => c.queue.admin.stats()) : Promise.resolve(null),
        probe(() => c.blobs.has('health-probe')),
      ]);
      return { database, ...(redis ? { redis } : {}), blobs };
    },

    /**
     * The model and execution provider the most recently seen worker published. While the
     * database is unreachable, the last answer read stays shown.
     */
    async recognition(): Promise<RecognitionInfo | null> {
      try {
        lastRecognition = await within(workerStatusRepo.latestRecognition<RecognitionInfo>(c.db), PROBE_MS);
      } catch {
        /* keep the last known answer */
      }
      return lastRecognition;
    },

    metrics: () => c.metrics.render(),
    metricsContentType: c.metrics.contentType,

    queues: (): Promise<QueueStats[]> => c.queue.admin.stats(),
    pause: (name: string) => c.queue.admin.pause(queue(name)),
    resume: (name: string) => c.queue.admin.resume(queue(name)),
    retryFailed: (name: string) => c.queue.admin.retryFailed(queue(name)),
    removeFailed: (name: string) => c.queue.admin.removeFailed(queue(name)),
    async setConcurrency(name: string, n: number) {
      if (!Number.isInteger(n) || n < 1) throw ERRORS.validation('concurrency', 'a whole number of at least 1');
      await c.queue.admin.setConcurrency(queue(name), n);
    },
  };
}

export type OpsService = ReturnType<typeof createOpsService>;
