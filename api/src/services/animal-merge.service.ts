import { randomUUID } from 'node:crypto';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { ActivityEventsRepo } from '../../../shared/src/repos/activity-events.repo.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import type { appendChainEvent, loadChain } from '../../../shared/src/repos/evidence/chain-store.js';
import type { Database, Queryable } from '../../../shared/src/ports/database.port.js';
import type * as mergesRepo from '../../../shared/src/repos/animal-merge.repo.js';
import type { Caller } from '../http/route.js';
import { animalIdOr404 } from './animals.service.js';
import type { IndividualsService } from './individuals.service.js';
import { isUuid } from '../../../shared/src/domain/ids.js';

const stamp = (e: { event_id: string; seq: number; leaf_hash: string }) => ({ event_id: e.event_id, seq: e.seq, leaf_hash: e.leaf_hash });
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** A merge as the owner reads it. */
function present(m: mergesRepo.MergeSummary) {
  return {
    merge_id: m.id,
    into: { animal_did: animalDid(m.into_id), name: m.into_name },
    from: { animal_did: animalDid(m.from_id), name: m.from_name },
    photos_moved: m.copies.length,
    photos: m.photos.map((p) => ({ cid: p.cid, url: `/api/blobs/${encodeURIComponent(p.cid)}` })),
    created_at: iso(m.created_at)!,
    undone_at: iso(m.undone_at),
  };
}

/**
 * Merging two of an owner's animals that turned out to be one, and undoing it (issue 39 item 7).
 * Both acts are recorded in both animals' chains; the merge is remembered (animal_merges) so
 * an un-merge gives `from` back its photos and descriptors and both are found by identify again.
 * Someone else's merge is the same 404 as a missing one.
 */
export interface AnimalMergeDeps {
  db: Pick<Database, 'transaction'> & Queryable;
  /** The access check both animals pass: the caller's own, live (404 otherwise, as for none). */
  individuals: Pick<IndividualsService, 'owned'>;
  /** animal-merge.repo's statements. */
  merges: typeof mergesRepo;
  /** chain-store's statements: both animals' chains record each act. */
  appendChainEvent: typeof appendChainEvent;
  loadChain: typeof loadChain;
  activity: Pick<ActivityEventsRepo, 'record'>;
}

export function createAnimalMergeService({ db, individuals, merges, appendChainEvent, loadChain, activity }: AnimalMergeDeps) {
  async function event(tx: Queryable, caller: Caller, entityId: string, body: Record<string, unknown>) {
    return appendChainEvent(tx, {
      entity_type: 'animal',
      entity_id: entityId,
      owner_id: caller.account_id,
      author_id: caller.account_id,
      author_role: 'owner',
      body,
    });
  }

  async function mine(caller: Caller, mergeId: string, tx: Queryable = db, lock = false) {
    const m = isUuid(mergeId) ? await merges.findMerge(tx, scopeOfCaller(caller), mergeId, lock) : null;
    if (!m) throw ERRORS.notFound();
    return m;
  }

  return {
    /**
     * Merge `from` into `into` (both the caller's): `from`'s photos and descriptors become
     * `into`'s under new image ids (so every owner index notices and rebuilds), `from` leaves lists
     * and matching like a deleted animal, and both chains record the merge; `into`'s event carries
     * `from`'s chain head and a summary of its events, so one history holds both.
     */
    async merge(caller: Caller, intoRef: string, fromRef: string) {
      const into = animalIdOr404(intoRef);
      const from = animalIdOr404(fromRef);
      if (into === from) throw new AppError(422, 'merge_same', { field: 'from' });
      await individuals.owned(caller, into, 'animal');
      await individuals.owned(caller, from, 'animal');
      const mergeId = randomUUID();
      return db.transaction(async (tx) => {
        const history = await loadChain(tx, 'animal', from);
        const photos = await merges.photosOf(tx, from);
        const copies: string[] = [];
        for (const p of photos) {
          const fresh = randomUUID();
          if (await merges.copyImage(tx, p.id, into, fresh, { source: 'merge', in_record: false })) copies.push(fresh);
        }
        await merges.deleteImages(
          tx,
          photos.map((p) => p.id),
          from,
        );
        await merges.retire(tx, from, into);
        await merges.insertMerge(tx, {
          id: mergeId,
          owner_id: caller.account_id,
          into_id: into,
          from_id: from,
          photos: photos.map(({ id: _id, ...p }) => p),
          copies,
        });
        const summary = history.map((e) => ({
          seq: e.seq,
          type: (e.body as { type?: unknown }).type ?? null,
          created_at: e.created_at,
          leaf_hash: e.leaf_hash,
        }));
        const a = await event(tx, caller, into, {
          type: 'merged',
          animal_did: animalDid(into),
          from: animalDid(from),
          merge_id: mergeId,
          photos_moved: copies.length,
          from_chain_head: history.at(-1)?.leaf_hash ?? null,
          from_events: summary,
        });
        const b = await event(tx, caller, from, {
          type: 'merged_into',
          animal_did: animalDid(from),
          into: animalDid(into),
          merge_id: mergeId,
          photos_moved: copies.length,
        });
        await activity.record(tx, caller.account_id, 'animal.merge', {
          into: animalDid(into),
          from: animalDid(from),
          moved: copies.length,
          merge_id: mergeId,
        });
        return {
          merge_id: mergeId,
          animal_did: animalDid(into),
          merged: animalDid(from),
          photos_moved: copies.length,
          event: stamp(a),
          merged_event: stamp(b),
        };
      });
    },

    /**
     * Undo a merge: `from` is back in lists and matching with its photos (new image ids, their
     * descriptors copied back from `into`'s), the rows the merge added to `into` are removed, and
     * both chains record it (`unmerged` on `into`, `restored` on `from`). Refused (409) once
     * undone, or while `into` is itself deleted or merged away (undo that first).
     */
    async unmerge(caller: Caller, mergeId: string) {
      return db.transaction(async (tx) => {
        const m = await mine(caller, mergeId, tx, true);
        if (m.undone_at) throw new AppError(409, 'merge_already_undone', { merge_id: m.id });
        if (!(await merges.isLive(tx, m.into_id))) throw new AppError(409, 'unmerge_into_gone', { merge_id: m.id });
        let restored = 0;
        for (const p of m.photos) {
          // The copy the merge made, or the row `into` already had for the same photo.
          const source = await merges.imageByCid(tx, m.into_id, p.cid);
          if (source && (await merges.copyImage(tx, source, m.from_id, randomUUID(), p))) restored++;
        }
        const removed = await merges.deleteImages(tx, m.copies, m.into_id);
        await merges.revive(tx, m.from_id);
        await merges.markUndone(tx, m.id);
        const into = animalDid(m.into_id);
        const from = animalDid(m.from_id);
        const a = await event(tx, caller, m.into_id, { type: 'unmerged', animal_did: into, from, merge_id: m.id, photos_removed: removed });
        const b = await event(tx, caller, m.from_id, {
          type: 'restored',
          animal_did: from,
          from: into,
          merge_id: m.id,
          photos_restored: restored,
        });
        await activity.record(tx, caller.account_id, 'animal.unmerge', { into, from, merge_id: m.id, restored, removed });
        return {
          merge_id: m.id,
          animal_did: into,
          restored: from,
          photos_restored: restored,
          photos_removed: removed,
          // Photos `into` no longer holds (deleted after the merge) cannot come back.
          photos_lost: m.photos.length - restored,
          event: stamp(a),
          restored_event: stamp(b),
        };
      });
    },

    /** One of the caller's merges. */
    async get(caller: Caller, mergeId: string) {
      return present(await mine(caller, mergeId));
    },

    /** The caller's merges into or out of one of their live animals, newest first. */
    async list(caller: Caller, ref: string) {
      const id = animalIdOr404(ref);
      await individuals.owned(caller, id, 'animal');
      return { animal_did: animalDid(id), merges: (await merges.mergesOf(db, scopeOfCaller(caller), id)).map(present) };
    },
  };
}

export type AnimalMergeService = ReturnType<typeof createAnimalMergeService>;
