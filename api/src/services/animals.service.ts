import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { ActivityEventsRepo } from '../../../shared/src/repos/activity-events.repo.js';
import type { AnimalsRepo, AnimalSummaryRow } from '../../../shared/src/repos/animals.repo.js';
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../../shared/src/ports/database.port.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { animalDid, animalRefToId } from '../../../shared/src/domain/animal-did.js';
import type { appendChainEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import type { AnimalSpeciesService } from './animal-species.service.js';
import type { JobOutcome, JobsService } from './jobs.service.js';
import type { MediaService } from './media.service.js';
import type { TreesService } from './trees.service.js';
import type { ViewsService } from './views.service.js';
import { speciesKey } from './scan.service.js';

/** An animal as lists show it: metadata only, never embeddings. */
export interface AnimalSummary {
  animal_did: string;
  individual_id: string;
  farm_id: string | null;
  species: string | null;
  name: string | null;
  image_count: number;
  cover: { image_id: string; cid: string } | null;
  created_at: string;
}

/** The code a never-built 3D model answers with (spec: "starting with a 'not yet built' code"). */
export const MODEL3D_NOT_BUILT = 'not_yet_built';

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : String(d));

/** The individual id an `animal_did` (or bare uuid) names; anything else is the same 404 as a missing animal. */
export function animalIdOr404(ref: string): string {
  const id = animalRefToId(ref);
  if (!id) throw ERRORS.notFound();
  return id;
}

function toSummary(r: AnimalSummaryRow): AnimalSummary {
  return {
    animal_did: animalDid(r.id),
    individual_id: r.id,
    farm_id: r.farm_id ?? null,
    species: r.species ?? null,
    name: r.name ?? null,
    image_count: Number(r.image_count),
    cover: r.cover ?? null,
    created_at: iso(r.created_at),
  };
}

/** Animal lists, metadata, renaming, deletion, 3D answers and 1:1 verification; access through `trees.access`. */
export interface AnimalsDeps {
  db: Pick<Database, 'transaction'> & Queryable;
  animals: AnimalsRepo;
  /** The access policy's answer for an individual (404 for "not yours" as for "missing") and the shared rename. */
  trees: Pick<TreesService, 'access' | 'rename'>;
  views: Pick<ViewsService, 'list'>;
  media: Pick<MediaService, 'withUploads'>;
  jobs: Pick<JobsService, 'run'>;
  species: Pick<AnimalSpeciesService, 'farmSpecies'>;
  /** chain-store's append: a deletion is an event on the animal's own chain. */
  appendChainEvent: typeof appendChainEvent;
  activity: Pick<ActivityEventsRepo, 'record'>;
}

export function createAnimalsService(deps: AnimalsDeps) {
  const { db, animals: animalsRepo, appendChainEvent } = deps;
  const access = (callerId: string, ref: string, need: 'read' | 'write' | 'owner') =>
    deps.trees.access(callerId, animalIdOr404(ref), need, 'animal');

  return {
    /** One page of the caller's animals on one farm (farm_id is scoped to the caller's account). */
    async list(caller: Caller, q: { farm_id: string; species?: string; limit: number; offset: number }) {
      const scope = scopeOfCaller(caller);
      let spellings: string[] | null = null;
      if (q.species) {
        // Any stored spelling of the asked species counts (id, Vietnamese or English name).
        const farm = await deps.species.farmSpecies(caller, q.farm_id);
        const hit = farm.find((f) => f.id === speciesKey(q.species!) || f.spellings.some((s) => speciesKey(s) === speciesKey(q.species!)));
        spellings = hit?.spellings ?? [q.species];
      }
      const total = await animalsRepo.countOnFarm(db, scope, q.farm_id, spellings);
      const rows = await animalsRepo.pageOnFarm(db, scope, q.farm_id, spellings, q.limit, q.offset);
      return { farm_id: q.farm_id, animals: rows.map(toSummary), total, limit: q.limit, offset: q.offset };
    },

    /** Metadata and views (never embeddings); with `describe`, the measured features_vi. */
    async get(callerId: string, ref: string, describe: boolean) {
      const a = await access(callerId, ref, 'read');
      const row = await animalsRepo.summary(db, a.id);
      const { tree_id: _id, ...views } = await deps.views.list(callerId, a.id, describe, 'animal');
      return { ...toSummary(row!), owner: a.standing === 'owner', ...views };
    },

    /** Rename after the shared cleaning; null when nothing is left (the route answers 200 with ok:false). */
    async rename(callerId: string, ref: string, name: string) {
      const done = await deps.trees.rename(callerId, animalIdOr404(ref), name, 'animal');
      return done ? { animal_did: animalDid(done.tree_id), name: done.name } : null;
    },

    /**
     * Delete: the animal leaves every list, lookup and match, its photos' rows and embeddings go,
     * and its owner's index drops them at its next search (the index is checked against the
     * database). What stays: a `deleted` event on the animal's own chain (history is never
     * erased) and an audit row in activity_events.
     */
    async remove(caller: Caller, ref: string) {
      const a = await access(caller.account_id, ref, 'owner');
      return db.transaction(async (tx) => {
        const removed = await animalsRepo.photoCounts(tx, a.id);
        const event = await appendChainEvent(tx, {
          entity_type: 'animal',
          entity_id: a.id,
          owner_id: a.owner_id,
          author_id: caller.account_id,
          author_role: 'owner',
          body: { type: 'deleted', animal_did: animalDid(a.id), images_removed: removed.images, embeddings_removed: removed.descriptors },
        });
        await animalsRepo.remove(tx, a.id);
        const audit = { animal_did: animalDid(a.id), event_id: event.event_id, seq: event.seq, leaf_hash: event.leaf_hash, ...removed };
        await deps.activity.record(tx, caller.account_id, 'animal.delete', audit);
        return {
          animal_did: animalDid(a.id),
          deleted: true,
          images_removed: removed.images,
          embeddings_removed: removed.descriptors,
          audit_event: { event_id: event.event_id, seq: event.seq, leaf_hash: event.leaf_hash },
        };
      });
    },

    /** The spec's three 3D states; read-only (no route builds a model). */
    async model3d(callerId: string, ref: string) {
      const a = await access(callerId, ref, 'read');
      const m = await animalsRepo.model3d(db, a.id);
      const did = animalDid(a.id);
      if (!m) return { animal_did: did, available: false, status: 'not_built', meta: { reason_code: MODEL3D_NOT_BUILT } };
      if (m.status === 'failed')
        return { animal_did: did, available: false, status: 'failed', meta: { reason_code: m.reason_code, gate: m.gate } };
      return {
        animal_did: did,
        available: true,
        status: 'built',
        model_cid: m.model_cid,
        meta: { reason_code: m.reason_code, trust: m.trust },
      };
    },

    /**
     * 1:1: the photo is identified against the caller's whole pool (the calibration is fitted on
     * answers among competitors; a pool of one would have no margins to judge by), and the answer
     * is read for the named animal. Stored under query_id like any identify query.
     */
    async verify(caller: Caller, ref: string, files: UploadedFile[], channels?: ('body' | 'face' | 'bio')[]) {
      const a = await access(caller.account_id, ref, 'read');
      const outcome: JobOutcome = await deps.media.withUploads(files, 'image', 'files', (m) =>
        deps.jobs.run('identify', {
          owner_id: caller.account_id,
          query_id: randomUUID(),
          kind: 'animal',
          images: m.map((x) => x.cid),
          filters: {},
          ...(channels ? { channels } : {}),
        }),
      );
      return { outcome, id: a.id };
    },
  };
}

export type AnimalsService = ReturnType<typeof createAnimalsService>;
