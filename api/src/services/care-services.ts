import type { Container } from '../../../shared/src/container.js';
import { createCareService } from './care.service.js';
import { createCareLogService } from './care-log.service.js';
import type { MediaService } from './media.service.js';
import { createResidueService } from './residue.service.js';

/** The care and residue services, wired together; one line in services/index.ts. */
export function createCareServices(c: Container, media: MediaService) {
  const care = createCareService(c);
  return { care, careLog: createCareLogService(c, { care, media }), residue: createResidueService(c, { care }) };
}
