/**
 * How timeline events look to each reader. The rules (spec sections 2, 3 and 6):
 * - the entity's owner sees every event of its chain, with `seq`;
 * - an event's own author (a signed-in non-owner) also sees the events they wrote, pending or
 *   not, since they already know their content;
 * - everyone else sees only events that are public and approved, without `seq`, because the
 *   leaf index (like `n` and `index` in a proof) is the owner's to know.
 */
import type { StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import type { AnchorView } from '../../../shared/src/repos/evidence/anchor-store.js';
import type { Caller } from '../http/route.js';

/** True when `caller` may read `event` of an entity owned by `ownerId`. */
export function canSee(event: StoredEvent, caller: Caller | null, ownerId: string): boolean {
  if (event.visibility === 'public' && event.approval === 'approved') return true;
  if (!caller) return false;
  return caller.account_id === ownerId || (event.author_id !== null && event.author_id === caller.account_id);
}

/** One own-chain event as a reader sees it. */
export function eventView(e: StoredEvent, isOwner: boolean) {
  return {
    event_id: e.event_id,
    entity_type: e.entity_type,
    entity_id: e.entity_id,
    ...(isOwner ? { seq: e.seq } : {}),
    body: e.body,
    author_role: e.author_role ?? null,
    created_at: e.created_at,
    visibility: e.visibility,
    approval: e.approval,
    prev_hash: e.prev_hash,
    leaf_hash: e.leaf_hash,
  };
}

/**
 * A care event inherited from the enclosing farm: marked, and without hashes (not in this chain).
 * `farmId` is the farm as the owner names it (the chain itself is keyed per account).
 */
export function inheritedView(e: StoredEvent, farmId: string = e.entity_id) {
  return {
    event_id: e.event_id,
    body: e.body,
    author_role: e.author_role ?? null,
    created_at: e.created_at,
    visibility: e.visibility,
    approval: e.approval,
    inherited_from: { entity_type: e.entity_type, entity_id: farmId },
  };
}

/** The anchor object of a proof; the anchored size is left out for non-owners (it is `n`). */
export function anchorForProof(a: AnchorView | null, isOwner: boolean) {
  if (!a) return null;
  return isOwner ? a : { ...a, size: undefined };
}
