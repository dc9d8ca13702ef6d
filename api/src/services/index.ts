import type { Container } from '../../../shared/src/container.js';
import { createAuthService } from './auth.service.js';
import { createAdminService } from './admin.service.js';
import { createFeedbackService } from './feedback.service.js';
import { createJobsService } from './jobs.service.js';
import { createMediaService } from './media.service.js';
import { createIndividualsService } from './individuals.service.js';

/** Every service the routes call, built once per process from the container. */
export function createServices(c: Container) {
  const jobs = createJobsService(c);
  const media = createMediaService(c);
  return {
    auth: createAuthService(c),
    feedback: createFeedbackService(c), admin: createAdminService(c),
    jobs,
    media,
    individuals: createIndividualsService(c, { media, jobs }),
  };
}

export type Services = ReturnType<typeof createServices>;
