import type { Container } from '../../../shared/src/container.js';
import { anchorCountsRepo } from '../../../shared/src/repos/evidence/anchor-counts.repo.js';
import { anchorMaterial, findAnchor, refreshAnchor } from '../../../shared/src/repos/evidence/anchor-store.js';
import { appendChainEvent, loadChain, loadFarmCare } from '../../../shared/src/repos/evidence/chain-store.js';
import { timelineSubmissionsRepo } from '../../../shared/src/repos/timeline-submissions.repo.js';
import { careLogRepo } from '../../../shared/src/repos/care-log.repo.js';
import { standingFor } from '../../../shared/src/access/standing.js';
import { createCareTimeline } from './care-views.js';
import { createSubmissions } from './timeline-submissions.js';
import { resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { commitmentFor } from '../../../shared/src/repos/evidence/entity-secret.js';
import { provenanceRepo } from '../../../shared/src/repos/provenance.repo.js';
import { anchoringFacts, createAnchorPublicService } from './anchor-public.service.js';
import { anchorPublicRepo } from '../../../shared/src/repos/anchor-public.repo.js';
import { createAnchorService } from './anchor.service.js';
import { ownedEntity, readableEntity } from './entity-access.js';
import type { JobsService } from './jobs.service.js';
import { createProvenanceService } from './provenance.service.js';
import { createTimelineService } from './timeline.service.js';

/** The evidence services (timelines, anchoring, provenance), wired together; one line in services/index.ts. */
export function createEvidenceServices(c: Container, jobs: JobsService) {
  const anchors = createAnchorService({
    db: c.db,
    backend: c.anchor,
    refresh: { pollS: c.config.CARDANO_POLL_S, timeoutS: c.config.CARDANO_TX_TIMEOUT_S },
    anchors: { find: findAnchor, refresh: refreshAnchor, ...anchorCountsRepo },
    owned: (type, id, caller) => ownedEntity(c.db, type, id, caller),
    jobs,
  });
  return {
    anchors,
    anchorPublic: createAnchorPublicService({
      db: c.db,
      anchors: anchorPublicRepo,
      loadChain,
      commitmentFor,
      facts: anchoringFacts(c),
    }),
    timeline: createTimelineService({
      db: c.db,
      readable: (type, id, caller) => readableEntity(c.db, type, id, caller),
      owned: (type, id, caller) => ownedEntity(c.db, type, id, caller),
      resolveEntity,
      loadChain,
      loadFarmCare,
      appendChainEvent,
      submissions: createSubmissions({
        submissions: timelineSubmissionsRepo,
        appendChainEvent,
        quota: { maxEvents: c.config.TIMELINE_PENDING_MAX_PER_ENTITY, maxBytes: c.config.TIMELINE_PENDING_MAX_BYTES_PER_ENTITY },
      }),
      legacy: timelineSubmissionsRepo,
      careEvents: createCareTimeline({ db: c.db, entries: careLogRepo, standingFor }),
      anchors,
    }),
    provenance: createProvenanceService({
      db: c.db,
      records: provenanceRepo,
      resolveEntity,
      loadChain,
      anchorMaterial,
      commitmentFor,
      anchors,
      blobs: c.blobs,
      publicKey: c.anchor.publicKey,
    }),
  };
}
