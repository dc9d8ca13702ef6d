import type { Container } from '../../../shared/src/container.js';
import { createAnchorPublicService } from './anchor-public.service.js';
import { createAnchorService } from './anchor.service.js';
import type { JobsService } from './jobs.service.js';
import { createProvenanceService } from './provenance.service.js';
import { createTimelineService } from './timeline.service.js';

/** The evidence services (timelines, anchoring, provenance), wired together; one line in services/index.ts. */
export function createEvidenceServices(c: Container, jobs: JobsService) {
  const anchors = createAnchorService(c, { jobs });
  return {
    anchors,
    anchorPublic: createAnchorPublicService(c),
    timeline: createTimelineService(c, { anchors }),
    provenance: createProvenanceService(c, { anchors }),
  };
}
