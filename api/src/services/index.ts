import type { Container } from '../../../shared/src/container.js';
import { createAuthService } from './auth.service.js';
import { createJobsService } from './jobs.service.js';

/** Every service the routes call, built once per process from the container. */
export function createServices(c: Container) {
  return {
    auth: createAuthService(c),
    jobs: createJobsService(c),
  };
}

export type Services = ReturnType<typeof createServices>;
