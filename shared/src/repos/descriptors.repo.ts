/**
 * Every statement on `descriptors` (a photo described by one model version), read with the
 * image and the individual it shows: the pools identify searches, the rows a calibration fit
 * holds out, the photos a new model still has to describe.
 *
 * A descriptor belongs to one model name and version; rows of other versions are never read
 * here, so every function takes the model it asks about.
 *
 * A descriptor is its account's own (shared/src/access/policy.ts). What one account reads or writes
 * of its own (a calibration fit's rows, a new descriptor) takes the owner's `OwnerScope`. The pool
 * reads (`poolRows`, `poolImageIds`) take the `SearchPool` of a search, which only the access module
 * makes (its own pool and those granted to it; shared/src/access/pool-owners.ts).
 * `ownerStamp`/`ownerRows`/`ownerImageIds` build the per-owner index a search opens, one owner at a
 * time, for an owner id taken from such a pool. The re-embedding sweep
 * (`undescribed`, `ownerKinds`, `anyUndescribed`) reads every owner's, or one owner's, by design.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { SearchPool } from '../access/pool-owners.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

/** The model a descriptor was made by. */
export interface ModelKey {
  name: string;
  version: string;
}

/** The animal a descriptor was made from (jsonb `subject`), in pixels of the decoded photo. */
export interface StoredSubject {
  box: { x: number; y: number; w: number; h: number };
  score: number | null;
  label: string | null;
  cocoClass: number | null;
}

/** An enrolled photo of some owners' pools, as the learned galleries rebuild an index from it. */
export interface PoolDescriptorRow {
  image_id: string;
  individual_id: string;
  farm_id: string | null;
  tree_id: string | null;
  cid: string;
  /** The base model's global embedding, as stored. */
  global: Uint8Array;
  subject: StoredSubject | null;
}

/** One owner's live descriptor as the HNSW index holds it. */
export interface IndexDescriptorRow {
  image_id: string;
  individual_id: string;
  kind: Kind;
  farm_id: string | null;
  tree_id: string | null;
  global: Uint8Array;
}

/** A photo of the owner's pool as a calibration fit holds it out. */
export interface FitDescriptorRow {
  image_id: string;
  individual_id: string;
  created_at: Date | string;
  tree_id: string | null;
  cid: string;
  global: Uint8Array;
  local: Uint8Array | null;
  subject: StoredSubject | null;
}

/** A photo with no descriptor from a model yet. */
export interface UndescribedImage {
  id: string;
  owner_id: string;
  cid: string;
  kind: Kind;
}

/** A descriptor to store (its owner is the scope it is stored in); jsonb columns as the driver takes them (arrays already JSON text). */
export interface NewDescriptor {
  image_id: string;
  model: string;
  model_version: string;
  global: Uint8Array;
  local: Uint8Array;
  quality: Record<string, unknown>;
  /** JSON text of the models that made it. */
  models: string;
  /** JSON text of the subject, or null. */
  subject: string | null;
}

/** Some owners' live photos of one kind under one model. */
const POOL = `from descriptors d join images i on i.id = d.image_id join individuals ind on ind.id = i.individual_id
  where d.owner_id = any($1::uuid[]) and ind.kind = $2 and d.model = $3 and d.model_version = $4 and ind.deleted_at is null`;

/** One owner's live photos of every kind under one model. */
const LIVE = `from descriptors d join images i on i.id = d.image_id join individuals ind on ind.id = i.individual_id
  where d.owner_id = $1 and d.model = $2 and d.model_version = $3 and ind.deleted_at is null`;

export const descriptorsRepo = {
  /** Image ids of the live photos of a search's `pool` of a kind (cheap: tells whether a cached index is stale). */
  async poolImageIds(db: Queryable, pool: SearchPool, kind: Kind, model: ModelKey): Promise<string[]> {
    const r = await db.query<{ image_id: string }>(`select d.image_id ${POOL}`, [[...pool], kind, model.name, model.version]);
    return r.rows.map((x) => x.image_id);
  },

  /**
   * Whole rows of the live photos of a kind in a search's `pool`: individuals in the order they were enrolled, each
   * one's photos oldest first, photos stored together by content id. Ids are random, so ordering by
   * them held out a different photo and trained on a different order each time the same herd was
   * learned from; this order is the same for the same photos, and an individual's last photos are
   * its newest.
   */
  async poolRows(db: Queryable, pool: SearchPool, kind: Kind, model: ModelKey): Promise<PoolDescriptorRow[]> {
    const r = await db.query<PoolDescriptorRow>(
      `select d.image_id, i.individual_id, ind.farm_id, ind.tree_id, i.cid, d.global, d.subject ${POOL}
        order by ind.created_at, i.individual_id, i.created_at, i.cid`,
      [[...pool], kind, model.name, model.version],
    );
    return r.rows;
  },

  /** The local features stored with `imageIds` under a model (photos without any are left out as null). */
  async localFeatures(
    db: Queryable,
    imageIds: readonly string[],
    model: ModelKey,
  ): Promise<{ image_id: string; local: Uint8Array | null }[]> {
    const r = await db.query<{ image_id: string; local: Uint8Array | null }>(
      'select image_id, local from descriptors where image_id = any($1::uuid[]) and model = $2 and model_version = $3',
      [imageIds, model.name, model.version],
    );
    return r.rows;
  },

  /** How many live descriptors an owner has under a model, and when the newest was written. */
  async ownerStamp(db: Queryable, ownerId: string, model: ModelKey): Promise<{ n: number; latest: Date | string | null }> {
    const r = await db.query<{ n: number; latest: Date | string | null }>(
      `select count(*)::int as n, max(d.created_at) as latest ${LIVE}`,
      [ownerId, model.name, model.version],
    );
    return r.rows[0]!;
  },

  /** An owner's live descriptors under a model, or only those written after `since`. */
  async ownerRows(db: Queryable, ownerId: string, model: ModelKey, since?: string): Promise<IndexDescriptorRow[]> {
    const params = [ownerId, model.name, model.version];
    const r = await db.query<IndexDescriptorRow>(
      `select d.image_id, i.individual_id, ind.kind, ind.farm_id, ind.tree_id, d.global ${LIVE} ${since ? 'and d.created_at > $4' : ''}`,
      since ? [...params, since] : params,
    );
    return r.rows;
  },

  async ownerImageIds(db: Queryable, ownerId: string, model: ModelKey): Promise<string[]> {
    const r = await db.query<{ image_id: string }>(`select d.image_id ${LIVE}`, [ownerId, model.name, model.version]);
    return r.rows.map((x) => x.image_id);
  },

  /** An owner's live photos of a kind under a model, with what a calibration fit needs of each. */
  async fitRows(db: Queryable, scope: OwnerScope, kind: Kind, model: ModelKey): Promise<FitDescriptorRow[]> {
    const r = await db.query<FitDescriptorRow>(
      `select d.image_id, i.individual_id, ind.tree_id, i.cid, i.created_at, d.global, d.local, d.subject
         from descriptors d join images i on i.id = d.image_id join individuals ind on ind.id = i.individual_id
        where d.owner_id = $1 and ind.kind = $2 and d.model = $3 and d.model_version = $4 and ind.deleted_at is null`,
      [scope.ownerId, kind, model.name, model.version],
    );
    return r.rows;
  },

  /** Each (owner, kind) with live photos described by a model (one owner's only, when given). */
  async ownerKinds(db: Queryable, model: ModelKey, ownerId?: string): Promise<{ owner_id: string; kind: Kind }[]> {
    const r = await db.query<{ owner_id: string; kind: Kind }>(
      `select distinct d.owner_id, ind.kind from descriptors d join images i on i.id = d.image_id join individuals ind on ind.id = i.individual_id
      where d.model = $1 and d.model_version = $2 and ($3::uuid is null or d.owner_id = $3) and ind.deleted_at is null`,
      [model.name, model.version, ownerId ?? null],
    );
    return r.rows;
  },

  /** Images (of one owner, or all) with no descriptor from a model. */
  async undescribed(db: Queryable, model: ModelKey, ownerId?: string): Promise<UndescribedImage[]> {
    const r = await db.query<UndescribedImage>(
      `select i.id, i.owner_id, i.cid, ind.kind from images i join individuals ind on ind.id = i.individual_id
      where ($3::uuid is null or i.owner_id = $3)
        and not exists (select 1 from descriptors d where d.image_id = i.id and d.model = $1 and d.model_version = $2)`,
      [model.name, model.version, ownerId ?? null],
    );
    return r.rows;
  },

  /** Whether any image at all lacks a descriptor from a model (a model change leaves photos to re-embed). */
  async anyUndescribed(db: Queryable, model: ModelKey): Promise<boolean> {
    const r = await db.query(
      `select 1 from images i where not exists
         (select 1 from descriptors d where d.image_id = i.id and d.model = $1 and d.model_version = $2) limit 1`,
      [model.name, model.version],
    );
    return r.rows.length > 0;
  },

  /** Stores a descriptor of the scope's account; one already stored for the image and model is kept. */
  async insert(db: Queryable, scope: OwnerScope, d: NewDescriptor): Promise<void> {
    await db.query(
      `insert into descriptors (image_id, owner_id, model, model_version, global, local, quality, models, subject)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing`,
      [d.image_id, scope.ownerId, d.model, d.model_version, d.global, d.local, d.quality, d.models, d.subject],
    );
  },
};
