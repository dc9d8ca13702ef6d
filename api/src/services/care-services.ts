import path from 'node:path';
import type { Container } from '../../../shared/src/container.js';
import { loadMrlTable } from '../../../shared/src/domain/residue/limits.js';
import { createCareService } from './care.service.js';
import { createCareLogService } from './care-log.service.js';
import type { MediaService } from './media.service.js';
import { createResidueService } from './residue.service.js';

/** The care and residue services, wired together; one line in services/index.ts. */
export function createCareServices(c: Container, media: MediaService) {
  const care = createCareService(c);
  const residue = createResidueService({
    store: c.residueStore,
    loadTable: () => loadMrlTable(c.config.RESIDUE_MRL_FILE ?? path.resolve('shared/data/residue/mrls.json')),
    care,
    logger: c.logger,
  });
  return { care, careLog: createCareLogService(c, { care, media }), residue };
}
