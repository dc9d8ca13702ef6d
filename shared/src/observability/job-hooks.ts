import type { Logger } from '../logger.js';
import type { JobHooks } from '../ports/queue.port.js';
import type { Metrics } from './metrics.js';

/**
 * What every worker does around a job run: one structured log line at start and at end, with
 * the job id and the id of the request that enqueued it (so `grep <request id>` finds both the
 * API's line and the worker's), and the wait/run metrics.
 */
export function jobHooks(logger: Logger, metrics: Metrics): JobHooks {
  return {
    started(i) {
      metrics.jobHooks.started(i);
      logger.debug({ jobId: i.id, reqId: i.requestId, queue: i.queue, job: i.name, attempt: i.attempt, waitMs: i.waitMs }, 'job started');
    },
    finished(i) {
      metrics.jobHooks.finished(i);
      const line = {
        jobId: i.id,
        reqId: i.requestId,
        queue: i.queue,
        job: i.name,
        attempt: i.attempt,
        waitMs: i.waitMs,
        runMs: i.runMs,
        outcome: i.outcome,
      };
      if (i.outcome === 'completed') logger.info(line, 'job finished');
      else logger.warn({ ...line, error: i.error }, i.outcome === 'retry' ? 'job failed, will retry' : 'job failed for good');
    },
  };
}
