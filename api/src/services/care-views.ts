/**
 * How care entries look to readers: as care log rows (GET /api/care/events) and as inherited
 * events on the target's timeline (spec section 2 "Timeline event and proof": inherited events
 * carry `inherited_from` and no prev_hash or leaf_hash, since they are not links of that chain).
 */
import type { standingFor } from '../../../shared/src/access/standing.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { CareLogRepo, CareRow } from '../../../shared/src/repos/care-log.repo.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { Caller } from '../http/route.js';

export type { CareRow };

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** A live care entry as the care log shows it. */
export function careEntryView(r: CareRow) {
  return {
    id: r.id,
    target_type: r.target_type,
    target_id: r.target_id,
    author_role: r.author_id === r.owner_id ? ('owner' as const) : ('contributor' as const),
    action: r.action,
    product_id: r.product_id,
    product_name: r.product_name,
    dose: r.dose,
    note: r.note,
    photo_cid: r.photo_cid,
    applied_at: iso(r.applied_at),
    withdrawal: r.withdrawal ?? null,
    withdrawal_until: iso(r.withdrawal_until),
    banned: (r.banned as { id: string; name: string; severity: string }[] | null) ?? [],
    created_at: iso(r.created_at)!,
  };
}

/** The timeline event shape of an inherited care event (kept equal to the farm-care inherited events). */
function inheritedEvent(r: CareRow, eventId: string, createdAt: string, body: Record<string, unknown>) {
  return {
    event_id: eventId,
    body,
    author_role: r.author_id === r.owner_id ? ('owner' as const) : ('contributor' as const),
    created_at: createdAt,
    visibility: 'private' as const,
    approval: 'approved' as const,
    inherited_from: { entity_type: 'care' as const, entity_id: r.id },
  };
}

/** What the care events of a timeline use: the care log repository and the caller's standing. */
export interface CareTimelineDeps {
  db: Queryable;
  entries: Pick<CareLogRepo, 'all'>;
  /** The access policy's standing of the caller towards the individual's owner. */
  standingFor: typeof standingFor;
}

/**
 * Care entries of an individual as timeline events, for callers who may read its care log (the
 * owner or a grantee); nobody else sees them. A deleted entry shows only its deletion event.
 */
export function createCareTimeline({ db, entries, standingFor }: CareTimelineDeps) {
  return async function careTimelineEvents(entity: ResolvedEntity, caller: Caller | null) {
    if (entity.entity_type === 'farm' || !caller) return [];
    if (!(await standingFor(db, caller.account_id, entity.owner_id, entity.entity_type))) return [];
    const rows = await entries.all(db, entity.entity_type, entity.entity_id);
    return rows.map((row) => {
      if (row.deleted_at)
        return inheritedEvent(row, row.deletion_event_id!, iso(row.deleted_at)!, { type: 'care_deleted', care_id: row.id });
      const v = careEntryView(row);
      return inheritedEvent(row, row.id, v.created_at, {
        type: 'care',
        action: v.action,
        product_id: v.product_id,
        product_name: v.product_name,
        dose: v.dose,
        applied_at: v.applied_at,
        withdrawal_until: v.withdrawal_until,
        photo_cid: v.photo_cid,
        banned: v.banned.map((b) => b.name),
      });
    });
  };
}

export type CareTimeline = ReturnType<typeof createCareTimeline>;
