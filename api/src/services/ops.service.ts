import type { Config } from '../../../shared/src/config/config.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { isQueueName, type QueueName } from '../../../shared/src/domain/queues.js';
import type { Metrics } from '../../../shared/src/observability/metrics.js';
import type { BlobStore } from '../../../shared/src/ports/blob-store.port.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { QueueAdmin, QueueStats } from '../../../shared/src/ports/queue.port.js';
import type { workerStatusRepo } from '../../../shared/src/repos/worker-status.repo.js';

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

/** What the ops service uses: the ports it probes and steers, and the worker status it reads. */
export interface OpsDeps {
  mode: Config['MODE'];
  db: Queryable;
  workerStatus: Pick<typeof workerStatusRepo, 'ping' | 'latestRecognition'>;
  queueAdmin: QueueAdmin;
  blobs: Pick<BlobStore, 'has'>;
  metrics: Pick<Metrics, 'render' | 'contentType'>;
}

/**
 * Operations: what health reports (dependencies, the model the workers loaded), the metrics
 * text, and the operator's queue steering. Reads worker state from the database; never loads
 * worker code.
 */
export function createOpsService(d: OpsDeps) {
  const queue = (name: string): QueueName => {
    if (!isQueueName(name)) throw new AppError(404, 'queue_unknown');
    return name;
  };
  let lastRecognition: RecognitionInfo | null = null;

  return {
    /** Each dependency of this deployment, probed now. Embedded mode has only its database. */
    async dependencies(): Promise<Record<string, DependencyState>> {
      const distributed = d.mode === 'distributed';
      const [database, redis, blobs] = await Promise.all([
        probe(() => d.workerStatus.ping(d.db)),
        distributed ? probe(() => d.queueAdmin.stats()) : Promise.resolve(null),
        probe(() => d.blobs.has('health-probe')),
      ]);
      return { database, ...(redis ? { redis } : {}), blobs };
    },

    /**
     * The model and execution provider the most recently seen worker published. While the
     * database is unreachable, the last answer read stays shown.
     */
    async recognition(): Promise<RecognitionInfo | null> {
      try {
        lastRecognition = await within(d.workerStatus.latestRecognition<RecognitionInfo>(d.db), PROBE_MS);
      } catch {
        /* keep the last known answer */
      }
      return lastRecognition;
    },

    metrics: () => d.metrics.render(),
    metricsContentType: d.metrics.contentType,

    queues: (): Promise<QueueStats[]> => d.queueAdmin.stats(),
    pause: (name: string) => d.queueAdmin.pause(queue(name)),
    resume: (name: string) => d.queueAdmin.resume(queue(name)),
    retryFailed: (name: string) => d.queueAdmin.retryFailed(queue(name)),
    removeFailed: (name: string) => d.queueAdmin.removeFailed(queue(name)),
    async setConcurrency(name: string, n: number) {
      if (!Number.isInteger(n) || n < 1) throw ERRORS.validation('concurrency', 'a whole number of at least 1');
      await d.queueAdmin.setConcurrency(queue(name), n);
    },
  };
}

export type OpsService = ReturnType<typeof createOpsService>;
