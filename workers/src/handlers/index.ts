import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import { assertHandlers, type JobHandlers } from '../../../shared/src/domain/jobs.js';
import { createDescriber } from '../recognition/describer.js';
import { enrollHandler } from './enroll.handler.js';

/** Build the handler for every catalogued job. Throws at start when one is missing. */
export async function createHandlers(c: Container): Promise<JobHandlers> {
  const engine = await createDescriber();
  const pending = async () => {
    throw new UnrecoverableJobError('not built yet', 503, 'internal');
  };
  const handlers: Partial<JobHandlers> = {
    enroll: enrollHandler({ c, engine, onEnrolled: async () => undefined }),
    identify: pending,
    video: pending,
    reindex: pending,
    anchor: pending,
  };
  assertHandlers(handlers);
  return handlers;
}
