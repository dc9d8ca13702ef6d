import { createHash } from 'node:crypto';
import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import {
  findAnchor,
  refreshAnchor,
  toAnchorView,
  type AnchorRow,
  type AnchorView,
} from '../../../shared/src/repos/evidence/anchor-store.js';
import type { EntityType } from '../../../shared/src/repos/evidence/chain-store.js';
import { ownedEntity } from './entity-access.js';
import type { Caller } from '../http/route.js';
import type { JobOutcome, JobsService } from './jobs.service.js';
import { isUuid } from '../../../shared/src/domain/ids.js';

/**
 * One job id per root size, backend and count of earlier failures at that size: repeated
 * requests share one job, and a failed anchoring can be asked for again.
 */
async function anchorJobId(c: Container, type: string, entityId: string, size: number): Promise<string> {
  const failed = await c.db.query<{ n: number }>(
    `select count(*)::int as n from anchors where entity_type = $1 and entity_id = $2 and size = $3 and backend = $4 and status = 'failed'`,
    [type, entityId, size, c.anchor.kind],
  );
  // Entity ids (farm ids) are free text; a hash keeps the job id within the queue's allowed characters.
  const key = createHash('sha256').update(`${type}/${entityId}`).digest('hex').slice(0, 24);
  return `anchor-${key}-${size}-${c.anchor.kind}-${failed.rows[0]!.n}`;
}

/**
 * Anchoring as the API sees it: owner-only requests that run the `anchor` job, the anchor of a
 * given root for proofs and provenance (advancing a submitted Cardano anchor on the way), and the
 * health of the anchoring path.
 */
export function createAnchorService(c: Container, deps: { jobs: JobsService }) {
  const refreshOpts = { pollS: c.config.CARDANO_POLL_S, timeoutS: c.config.CARDANO_TX_TIMEOUT_S };

  /** The row for the entity's root at `size` (largest anchored size when omitted), refreshed. */
  async function current(type: string, id: string, size?: number): Promise<{ row: AnchorRow; view: AnchorView } | null> {
    const row = await findAnchor(c.db, type, id, size);
    if (!row) return null;
    const fresh = await refreshAnchor(c.db, c.anchor, row, refreshOpts);
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
      const entity = await ownedEntity(c.db, type, id, caller);
      if (!entity) throw ERRORS.notFound();
      if (!isUuid(eventId)) throw ERRORS.notFound();
      const r = await c.db.query<{ n: number }>(
        `select (select count(*)::int from timeline_events where entity_type = $1 and entity_id = $2) as n
         where exists (select 1 from timeline_events where id = $3 and entity_type = $1 and entity_id = $2)`,
        [type, entity.entity_id, eventId.toLowerCase()],
      );
      const size = r.rows[0]?.n;
      if (size === undefined) throw ERRORS.notFound();
      const jobId = await anchorJobId(c, type, entity.entity_id, size);
      return deps.jobs.run(
        'anchor',
        { owner_id: caller.account_id, entity_type: type, entity_id: entity.entity_id, event_id: eventId.toLowerCase() },
        jobId,
      );
    },

    /** Health of the anchoring path and counts of anchors by status. */
    async status() {
      const health = await c.anchor.health();
      const counts = await c.db.query<{ status: string; n: number }>(
        'select status, count(*)::int as n from anchors where backend = $1 group by status',
        [c.anchor.kind],
      );
      const byStatus: Record<string, number> = { pending: 0, submitted: 0, confirmed: 0, failed: 0 };
      for (const row of counts.rows) byStatus[row.status] = row.n;
      return { ok: true as const, backend: c.anchor.kind, healthy: health.ok, detail: health.detail, anchors: byStatus };
    },
  };
}

export type AnchorService = ReturnType<typeof createAnchorService>;
