import { createHash } from 'node:crypto';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { isUuid } from '../../../shared/src/domain/ids.js';
import type { AnchorBackend } from '../../../shared/src/ports/anchor.port.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { AnchorCountsRepo } from '../../../shared/src/repos/evidence/anchor-counts.repo.js';
import {
  toAnchorView,
  type AnchorRow,
  type AnchorView,
  type findAnchor,
  type refreshAnchor,
  type RefreshOptions,
} from '../../../shared/src/repos/evidence/anchor-store.js';
import type { EntityType } from '../../../shared/src/repos/evidence/chain-store.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { Caller } from '../http/route.js';
import type { JobOutcome, JobsService } from './jobs.service.js';

/** What the anchor service uses: the anchoring backend, the anchor rows and counts, the owner check and jobs. */
export interface AnchorDeps {
  db: Queryable;
  backend: AnchorBackend;
  /** CARDANO_POLL_S and CARDANO_TX_TIMEOUT_S: how often, and how long, a submitted anchor is re-read. */
  refresh: RefreshOptions;
  anchors: { find: typeof findAnchor; refresh: typeof refreshAnchor } & Pick<AnchorCountsRepo, 'chainSizeWith' | 'failedAt' | 'byStatus'>;
  /** The entity when the caller owns it, else null (entity-access.ts's ownedEntity on `db`). */
  owned: (type: EntityType, id: string, caller: Caller) => Promise<ResolvedEntity | null>;
  jobs: Pick<JobsService, 'run'>;
}

/**
 * Anchoring as the API sees it: owner-only requests that run the `anchor` job, the anchor of a
 * given root for proofs and provenance (advancing a submitted Cardano anchor on the way), and the
 * health of the anchoring path.
 */
export function createAnchorService(d: AnchorDeps) {
  /**
   * One job id per root size, backend and count of earlier failures at that size: repeated
   * requests share one job, and a failed anchoring can be asked for again.
   */
  async function anchorJobId(type: string, entityId: string, size: number): Promise<string> {
    const failed = await d.anchors.failedAt(d.db, type, entityId, size, d.backend.kind);
    // Entity ids (farm ids) are free text; a hash keeps the job id within the queue's allowed characters.
    const key = createHash('sha256').update(`${type}/${entityId}`).digest('hex').slice(0, 24);
    return `anchor-${key}-${size}-${d.backend.kind}-${failed}`;
  }

  /** The row for the entity's root at `size` (largest anchored size when omitted), refreshed. */
  async function current(type: string, id: string, size?: number): Promise<{ row: AnchorRow; view: AnchorView } | null> {
    const row = await d.anchors.find(d.db, type, id, size);
    if (!row) return null;
    const fresh = await d.anchors.refresh(d.db, d.backend, row, d.refresh);
    return { row: fresh, view: toAnchorView(fresh) };
  }

  return {
    current,

    /**
     * Owner only: anchor the entity's whole chain root. `event_id` must be an event of the chain;
     * it only records which event triggered the anchoring.
     */
    async request(caller: Caller, type: EntityType, id: string, eventId: string): Promise<JobOutcome> {
      // Not yours and missing are the same 404.
      const entity = await d.owned(type, id, caller);
      if (!entity) throw ERRORS.notFound();
      if (!isUuid(eventId)) throw ERRORS.notFound();
      const size = await d.anchors.chainSizeWith(d.db, type, entity.entity_id, eventId.toLowerCase());
      if (size === null) throw ERRORS.notFound();
      const jobId = await anchorJobId(type, entity.entity_id, size);
      return d.jobs.run(
        'anchor',
        { owner_id: caller.account_id, entity_type: type, entity_id: entity.entity_id, event_id: eventId.toLowerCase() },
        jobId,
      );
    },

    /** Health of the anchoring path and counts of anchors by status. */
    async status() {
      const health = await d.backend.health();
      const counts = await d.anchors.byStatus(d.db, d.backend.kind);
      const anchors = { pending: 0, submitted: 0, confirmed: 0, failed: 0, ...counts };
      return { ok: true as const, backend: d.backend.kind, healthy: health.ok, detail: health.detail, anchors };
    },
  };
}

export type AnchorService = ReturnType<typeof createAnchorService>;
