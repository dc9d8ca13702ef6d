/**
 * The counts anchoring requests are decided on: how long an entity's chain was when an event was
 * in it, how often a root failed to anchor (so a failed anchoring can be asked for again), and the
 * anchors of a backend by status. The rows themselves are anchor-store.ts's.
 */
import type { AnchorStatus } from '../../ports/anchor.port.js';
import type { Queryable } from '../../ports/database.port.js';

export const anchorCountsRepo = {
  /** The number of events in the entity's chain, when `eventId` is one of them; null otherwise. */
  async chainSizeWith(db: Queryable, type: string, entityId: string, eventId: string): Promise<number | null> {
    const r = await db.query<{ n: number }>(
      `select (select count(*)::int from timeline_events where entity_type = $1 and entity_id = $2) as n
       where exists (select 1 from timeline_events where id = $3 and entity_type = $1 and entity_id = $2)`,
      [type, entityId, eventId],
    );
    return r.rows[0]?.n ?? null;
  },

  /** How many times the entity's root at `size` failed to anchor on `backend`. */
  async failedAt(db: Queryable, type: string, entityId: string, size: number, backend: string): Promise<number> {
    const r = await db.query<{ n: number }>(
      `select count(*)::int as n from anchors where entity_type = $1 and entity_id = $2 and size = $3 and backend = $4 and status = 'failed'`,
      [type, entityId, size, backend],
    );
    return r.rows[0]!.n;
  },

  /** Anchors on `backend` by status; a status without any is absent. */
  async byStatus(db: Queryable, backend: string): Promise<Partial<Record<AnchorStatus, number>>> {
    const r = await db.query<{ status: AnchorStatus; n: number }>(
      'select status, count(*)::int as n from anchors where backend = $1 group by status',
      [backend],
    );
    return Object.fromEntries(r.rows.map((row) => [row.status, row.n]));
  },
};

export type AnchorCountsRepo = typeof anchorCountsRepo;
