import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import { assertHandlers, type JobHandlers } from '../../../shared/src/domain/jobs.js';

/** Build the handler for every catalogued job. Throws at start when one is missing. */
export async function createHandlers(_c: Container): Promise<JobHandlers> {
  const pending = async () => {
    throw new UnrecoverableJobError('not built yet', 503, 'internal');
  };
  const handlers: Partial<JobHandlers> = { enroll: pending, identify: pending, video: pending, reindex: pending, anchor: pending };
  assertHandlers(handlers);
  return handlers;
}
