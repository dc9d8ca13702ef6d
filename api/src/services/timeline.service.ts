import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { EvidenceFormatError, fromHex } from '../../../shared/src/evidence/bytes.js';
import { chainRoot, eventInclusionProof, verifyChain } from '../../../shared/src/evidence/chain.js';
import { consistencyProof } from '../../../shared/src/evidence/merkle-consistency.js';
import type { Database, Queryable } from '../../../shared/src/ports/database.port.js';
import {
  toChainEvent,
  type appendChainEvent,
  type EntityType,
  type loadChain,
  type loadFarmCare,
  type StoredEvent,
} from '../../../shared/src/repos/evidence/chain-store.js';
import type { resolveEntity, ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { TimelineSubmissionsRepo } from '../../../shared/src/repos/timeline-submissions.repo.js';
import type { Caller } from '../http/route.js';
import { unstorableText } from '../middleware/text.js';
import type { AnchorService } from './anchor.service.js';
import { anchorForProof, canSee, eventView, inheritedView } from './timeline-views.js';
import type { CareTimeline } from './care-views.js';
import { checkEventBody, type Submissions } from './timeline-submissions.js';
import { isUuid } from '../../../shared/src/domain/ids.js';
import { scopeOfCaller, scopeOfIndividualOwner } from '../../../shared/src/access/owner-scope.js';
import { ownedBy } from '../../../shared/src/access/owned.js';

/** Re-exported: the check moved to the HTTP edge, where every text field goes through it. */
export { unstorableText };

/** What timelines use: the chain store, entity access, contributor submissions, care events and anchors. */
export interface TimelineDeps {
  db: Pick<Database, 'transaction'> & Queryable;
  /** entity-access's readableEntity and ownedEntity on `db`: null for "not yours" exactly as for "missing". */
  readable: (type: EntityType, id: string, caller: Caller | null) => Promise<ResolvedEntity | null>;
  owned: (type: EntityType, id: string, caller: Caller) => Promise<ResolvedEntity | null>;
  /** entity-owner's resolveEntity (the enclosing farm) and chain-store's statements. */
  resolveEntity: typeof resolveEntity;
  loadChain: typeof loadChain;
  loadFarmCare: typeof loadFarmCare;
  appendChainEvent: typeof appendChainEvent;
  submissions: Pick<Submissions, 'submit' | 'pendingFor' | 'decide'>;
  /** The approval of a legacy pending event already in the chain. */
  legacy: Pick<TimelineSubmissionsRepo, 'approveChained'>;
  /** The target's care log entries as inherited events (care-views.ts). */
  careEvents: CareTimeline;
  anchors: Pick<AnchorService, 'current'>;
}

/**
 * Per-entity timelines (spec section 3 "Timeline event visibility", section 4 "Timeline and
 * anchoring"): appends, reads with `chain_ok`, approval, inclusion and consistency proofs.
 */
export function createTimelineService(deps: TimelineDeps) {
  const { db, submissions } = deps;
  /** The entity if the caller may read it; otherwise the 404 every unreadable thing gets. */
  async function readableOr404(caller: Caller | null, type: EntityType, id: string): Promise<ResolvedEntity> {
    const entity = await deps.readable(type, id, caller);
    if (!entity) throw ERRORS.notFound();
    return entity;
  }

  /** The entity if the caller owns it; "not yours" is the same 404 as "missing". */
  async function ownedOr404(caller: Caller, type: EntityType, id: string): Promise<ResolvedEntity> {
    const entity = await deps.owned(type, id, caller);
    if (!entity) throw ERRORS.notFound();
    return entity;
  }

  /** The chained event `eventId` if the caller may read it; otherwise the one identical 404 (pending submissions have no proof). */
  async function readableEvent(caller: Caller | null, type: EntityType, id: string, eventId: string) {
    const entity = await readableOr404(caller, type, id);
    if (!isUuid(eventId)) throw ERRORS.notFound();
    const chain = await deps.loadChain(db, type, entity.entity_id);
    const event = chain.find((e) => e.event_id === eventId.toLowerCase());
    if (!event || !canSee(event, caller, entity.owner_id)) throw ERRORS.notFound();
    return { entity, chain, event, isOwner: caller?.account_id === entity.owner_id };
  }

  /** Care events of the enclosing farm: the owner's own farm of that name, never another account's. */
  async function inherited(entity: ResolvedEntity, caller: Caller | null): Promise<StoredEvent[]> {
    if (entity.entity_type === 'farm' || !entity.farm_id) return [];
    const farm = await deps.resolveEntity(db, 'farm', entity.farm_id, { owner: scopeOfIndividualOwner(entity) });
    if (!farm) return [];
    return (await deps.loadFarmCare(db, farm.entity_id)).filter((e) => canSee(e, caller, farm.owner_id));
  }

  return {
    /**
     * Records an event. The owner's events are appended to the chain, public and approved. A
     * reader who is not the owner (grantee, or anyone on a published individual) leaves a pending
     * submission outside the chain. An entity with no resolvable owner, and one the caller cannot
     * read, refuse with the same 403 (spec section 3; "not yours" looks like "missing").
     */
    async post(caller: Caller, type: EntityType, id: string, body: Record<string, unknown>) {
      const entity = await deps.readable(type, id, caller);
      if (!entity) throw new AppError(403, 'entity_no_owner');
      const bad = unstorableText(body);
      if (bad) throw ERRORS.validation('body', bad);
      checkEventBody(body);
      // The owner appends; a grantee's event waits for the owner's decision.
      const isOwner = ownedBy(entity, scopeOfCaller(caller)) !== null;
      try {
        if (!isOwner) {
          const pending = await db.transaction((tx) => submissions.submit(tx, entity, caller.account_id, body, id));
          return { ok: true as const, event: pending };
        }
        const event = await db.transaction((tx) =>
          deps.appendChainEvent(tx, {
            entity_type: type,
            entity_id: entity.entity_id,
            owner_id: entity.owner_id,
            author_id: caller.account_id,
            author_role: 'owner',
            body,
          }),
        );
        return { ok: true as const, event: eventView(event, true) };
      } catch (err) {
        if (err instanceof EvidenceFormatError) throw ERRORS.validation('body', err.message);
        throw err;
      }
    },

    /** Own chain, pending submissions the caller may see, and inherited care, merged by time; plus the integrity of the own chain. */
    async timeline(caller: Caller | null, type: EntityType, id: string) {
      const entity = await readableOr404(caller, type, id);
      const chain = await deps.loadChain(db, type, entity.entity_id);
      const isOwner = caller?.account_id === entity.owner_id;
      const own = chain.filter((e) => canSee(e, caller, entity.owner_id)).map((e) => eventView(e, isOwner));
      const pending = await submissions.pendingFor(db, entity, caller?.account_id ?? null, entity.entity_id);
      const care = (await inherited(entity, caller)).map((e) => inheritedView(e, entity.farm_id ?? e.entity_id));
      // Care log entries of this individual (POST /api/care/log), inherited like farm care.
      const careLog = await deps.careEvents(entity, caller);
      const events = [...own, ...pending, ...care, ...careLog].sort((a, b) => a.created_at.localeCompare(b.created_at));
      const verdict = verifyChain(chain.map(toChainEvent));
      return {
        ok: true as const,
        entity_type: type,
        entity_id: type === 'farm' ? id : entity.entity_id,
        chain_ok: verdict.ok,
        ...(isOwner ? { size: chain.length, ...(verdict.ok ? {} : { broken_at: verdict.broken_at }) } : {}),
        events,
      };
    },

    /**
     * Owner only: a pending submission is appended to the chain by this approval (its author and
     * the approval go inside the hashed body). A legacy pending event already in the chain only
     * changes its unhashed approval fields.
     */
    async approve(caller: Caller, type: EntityType, id: string, eventId: string) {
      const entity = await ownedOr404(caller, type, id);
      if (!isUuid(eventId)) throw ERRORS.notFound();
      const decided = await db.transaction((tx) => submissions.decide(tx, entity, eventId.toLowerCase(), true));
      if (decided && decided !== 'rejected') return { ok: true as const, event: eventView(decided, true) };
      if (!(await deps.legacy.approveChained(db, eventId.toLowerCase(), type, entity.entity_id))) throw ERRORS.notFound();
      const event = (await deps.loadChain(db, type, entity.entity_id)).find((e) => e.event_id === eventId.toLowerCase())!;
      return { ok: true as const, event: eventView(event, true) };
    },

    /** Owner only: a pending submission is rejected and never enters the chain. */
    async reject(caller: Caller, type: EntityType, id: string, eventId: string) {
      const entity = await ownedOr404(caller, type, id);
      if (!isUuid(eventId)) throw ERRORS.notFound();
      const decided = await db.transaction((tx) => submissions.decide(tx, entity, eventId.toLowerCase(), false));
      if (decided !== 'rejected') throw ERRORS.notFound();
      return { ok: true as const, event_id: eventId.toLowerCase(), rejected: true as const };
    },

    /**
     * RFC 6962 inclusion proof of one event in the chain root (the current root, or the owner's
     * chosen earlier `size`), with the anchor of that root or null.
     */
    async proof(caller: Caller | null, type: EntityType, id: string, eventId: string, size?: number) {
      const { entity, chain, event, isOwner } = await readableEvent(caller, type, id, eventId);
      const n = isOwner && size !== undefined ? size : chain.length;
      if (n <= event.seq || n > chain.length) throw ERRORS.validation('size', `must be between ${event.seq + 1} and ${chain.length}`);
      const p = eventInclusionProof(chain.map(toChainEvent), event.seq, n);
      const anchored = await deps.anchors.current(type, entity.entity_id, n);
      return {
        ok: true as const,
        event_id: event.event_id,
        leaf_hash: p.leaf_hash,
        path: p.path,
        root_hex: p.root_hex,
        ...(isOwner ? { n: p.n, index: p.index } : {}),
        anchor: anchorForProof(anchored && anchored.view.status !== 'failed' ? anchored.view : null, isOwner),
      };
    },

    /** Owner only: RFC 9162 consistency proof that the chain at `first` events is a prefix of it at `second`. */
    async consistency(caller: Caller, type: EntityType, id: string, first: number, second?: number) {
      const entity = await ownedOr404(caller, type, id);
      const chain = await deps.loadChain(db, type, entity.entity_id);
      const n = second ?? chain.length;
      if (n > chain.length || n < 1) throw ERRORS.validation('second', `must be between 1 and ${chain.length}`);
      if (first < 1 || first > n) throw ERRORS.validation('first', `must be between 1 and ${n}`);
      const leaves = chain.slice(0, n).map((e) => fromHex(e.leaf_hash, 32));
      return {
        ok: true as const,
        first,
        second: n,
        first_root: chainRoot(chain.slice(0, first)),
        second_root: chainRoot(chain.slice(0, n)),
        proof: consistencyProof(leaves, first),
      };
    },
  };
}

export type TimelineService = ReturnType<typeof createTimelineService>;
