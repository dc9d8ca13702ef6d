import path from 'node:path';
import type { Container } from '../../../shared/src/container.js';
import { loadMrlTable } from '../../../shared/src/domain/residue/limits.js';
import { createCareService } from './care.service.js';
import { createCareLogService } from './care-log.service.js';
import type { MediaService } from './media.service.js';
import { createResidueService } from './residue.service.js';
import { standingFor } from '../../../shared/src/access/standing.js';
import { careLogRepo } from '../../../shared/src/repos/care-log.repo.js';
import { releaseBlobs } from '../../../shared/src/repos/evidence/blob-refs.js';
import { resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';

/** The care and residue services, wired together; one line in services/index.ts. */
export function createCareServices(c: Container, media: MediaService) {
  const care = createCareService({
    files: {
      banned: c.config.CARE_BANNED_FILE ?? path.resolve('shared/data/care/banned.json'),
      products: c.config.CARE_PRODUCTS_FILE ?? path.resolve('shared/data/care/products.json'),
    },
    ocr: c.ocr,
    limits: {
      imageMaxPixels: c.config.IMAGE_MAX_PIXELS,
      ocrMaxConcurrent: c.config.OCR_MAX_CONCURRENT,
      ocrMaxPerAccount: c.config.OCR_MAX_PER_ACCOUNT,
    },
    logger: c.logger,
  });
  const residue = createResidueService({
    store: c.residueStore,
    loadTable: () => loadMrlTable(c.config.RESIDUE_MRL_FILE ?? path.resolve('shared/data/residue/mrls.json')),
    care,
    logger: c.logger,
  });
  const careLog = createCareLogService({
    db: c.db,
    entries: careLogRepo,
    resolveEntity,
    standingFor,
    care,
    media,
    releaseBlobs: (cids) => releaseBlobs(c, cids),
    logger: c.logger,
  });
  return { care, careLog, residue };
}
