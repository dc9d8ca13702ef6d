/**
 * Statements on `individuals` (the trees, fruit and animals an owner enrolled). Whether a caller
 * may see or change one is the access policy's question (access.repo.ts); these reads serve the
 * owner's own data to the owner's own jobs.
 *
 * What lists or picks an account's own individuals by owner takes the owner's `OwnerScope`, made
 * from who is asking (shared/src/access/owner-scope.ts). The pool reads (`nearbyIds`, `countLive`,
 * `speciesOfPool`, `speciesCounts`) take the `SearchPool` of a search, its own pool and those granted
 * to it, which only the access module makes (shared/src/access/pool-owners.ts); `rowsOf`, `labelsOf`, `createdAt` and `nameOf` read individuals by id, ones an
 * answer already ranked or the access module already resolved.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { SearchPool } from '../access/pool-owners.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

/** Kilometres in one degree of latitude. */
const KM_PER_DEGREE = 111.32;

/** An individual to create; its owner is the scope it is created in. */
export interface NewIndividual {
  id: string;
  kind: Kind;
  farm_id: string | null;
  tree_id: string | null;
  species: string | null;
  name: string | null;
  lat: number | null;
  lon: number | null;
  /** Every attribute the enrolment was sent, as jsonb. */
  attrs: Record<string, unknown>;
}

export interface IndividualLabel {
  id: string;
  name: string | null;
  species: string | null;
  farm_id: string | null;
}

export const individualsRepo = {
  /** Ids of an owner's live (not deleted) individuals of a kind. */
  async liveIdsOfKind(db: Queryable, scope: OwnerScope, kind: Kind): Promise<string[]> {
    const r = await db.query<{ id: string }>('select id from individuals where owner_id = $1 and kind = $2 and deleted_at is null', [
      scope.ownerId,
      kind,
    ]);
    return r.rows.map((x) => x.id);
  },

  /** Ids of an owner's live animals (of one farm, when given) whose stored species is one of `spellings`. */
  async animalsOfSpecies(db: Queryable, scope: OwnerScope, farmId: string | null, spellings: readonly string[]): Promise<string[]> {
    const r = await db.query<{ id: string }>(
      `select id from individuals where owner_id = $1 and kind = 'animal' and deleted_at is null
          and ($2::text is null or farm_id = $2) and species = any($3::text[])`,
      [scope.ownerId, farmId, [...spellings]],
    );
    return r.rows.map((x) => x.id);
  },

  /**
   * Ids of the live individuals of `kind` in these owners' pools enrolled within `km` of a point
   * (an equirectangular distance, fine at orchard scale), plus those enrolled without a location.
   */
  async nearbyIds(db: Queryable, pool: SearchPool, kind: Kind, near: { lat: number; lon: number }, km: number): Promise<string[]> {
    const r = await db.query<{ id: string }>(
      `select id from individuals
        where owner_id = any($1::uuid[]) and kind = $2 and deleted_at is null
          and (lat is null or lon is null
               or sqrt(power(lat - $3, 2) + power((lon - $4) * cos(radians($3)), 2)) * $5 <= $6)`,
      [[...pool], kind, near.lat, near.lon, KM_PER_DEGREE, km],
    );
    return r.rows.map((x) => x.id);
  },

  /** How many live individuals of `kind` these owners' pools hold. */
  async countLive(db: Queryable, pool: SearchPool, kind: Kind): Promise<number> {
    const r = await db.query<{ n: number }>(
      'select count(*)::int as n from individuals where owner_id = any($1::uuid[]) and kind = $2 and deleted_at is null',
      [[...pool], kind],
    );
    return r.rows[0]?.n ?? 0;
  },

  /**
   * Owner, name, species and farm of each of `ids`, deleted ones included: an answer ranked from a
   * pool read a moment ago still names an individual deleted since.
   */
  async rowsOf(db: Queryable, ids: readonly string[]): Promise<(IndividualLabel & { owner_id: string })[]> {
    const r = await db.query<IndividualLabel & { owner_id: string }>(
      'select id, owner_id, name, species, farm_id from individuals where id = any($1::uuid[])',
      [[...ids]],
    );
    return r.rows;
  },

  /** Each live individual of `kind` in these owners' pools with its stored species, as written. */
  async speciesOfPool(db: Queryable, pool: SearchPool, kind: Kind): Promise<{ id: string; species: string | null }[]> {
    const r = await db.query<{ id: string; species: string | null }>(
      'select id, species from individuals where owner_id = any($1::uuid[]) and kind = $2 and deleted_at is null',
      [[...pool], kind],
    );
    return r.rows;
  },

  /**
   * How many live individuals of `kind` each species (lower-cased; null: none stored) counts in these
   * owners' pools, within one farm and among `only` when given.
   */
  async speciesCounts(
    db: Queryable,
    pool: SearchPool,
    kind: Kind,
    farmId: string | null,
    only?: ReadonlySet<string>,
  ): Promise<{ species: string | null; n: number }[]> {
    const r = await db.query<{ species: string | null; n: string }>(
      `select lower(species) as species, count(*) as n from individuals
        where owner_id = any($1::uuid[]) and kind = $4 and deleted_at is null and ($2::text is null or farm_id = $2) and ($3::uuid[] is null or id = any($3::uuid[]))
        group by 1`,
      [[...pool], farmId, only ? [...only] : null, kind],
    );
    return r.rows.map((x) => ({ species: x.species, n: Number(x.n) }));
  },

  /** Creates an enrolled individual; a retry of the same id keeps the row it made first. */
  async insertEnrolled(db: Queryable, scope: OwnerScope, row: NewIndividual): Promise<void> {
    await db.query(
      `insert into individuals (id, owner_id, kind, farm_id, tree_id, species, name, lat, lon, attrs)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (id) do nothing`,
      [row.id, scope.ownerId, row.kind, row.farm_id, row.tree_id, row.species, row.name, row.lat, row.lon, row.attrs],
    );
  },

  /** Whether the owner's individual is live (a job's own check, inside its transaction). */
  async isOwnLive(db: Queryable, id: string, scope: OwnerScope): Promise<boolean> {
    const r = await db.query('select 1 from individuals where id = $1 and owner_id = $2 and deleted_at is null', [id, scope.ownerId]);
    return r.rows.length > 0;
  },

  /** When an individual was enrolled (null: no such individual). */
  async createdAt(db: Queryable, id: string): Promise<Date | null> {
    const r = await db.query<{ created_at: Date | string }>('select created_at from individuals where id = $1', [id]);
    return r.rows[0] ? new Date(r.rows[0].created_at) : null;
  },

  /** The stored name of an individual (null: none, or no such individual). */
  async nameOf(db: Queryable, id: string): Promise<string | null> {
    const r = await db.query<{ name: string | null }>('select name from individuals where id = $1', [id]);
    return r.rows[0]?.name ?? null;
  },

  /** The owner's live animal that already holds one of these photos (by content id), if any. */
  async animalWithPhoto(db: Queryable, scope: OwnerScope, cids: readonly string[]): Promise<{ id: string; name: string | null } | null> {
    const r = await db.query<{ id: string; name: string | null }>(
      `select ind.id, ind.name from images i join individuals ind on ind.id = i.individual_id
       where i.owner_id = $1 and ind.kind = 'animal' and ind.deleted_at is null and i.cid = any($2) limit 1`,
      [scope.ownerId, [...cids]],
    );
    return r.rows[0] ?? null;
  },

  /** The distinct species spellings stored on an owner's live animals (of one farm, when given), blank ones left out. */
  async speciesOfFarm(db: Queryable, scope: OwnerScope, farmId: string | null): Promise<string[]> {
    const r = await db.query<{ species: string }>(
      `select distinct species from individuals
        where owner_id = $1 and kind = 'animal' and deleted_at is null and coalesce(trim(species), '') <> ''
          and ($2::text is null or farm_id = $2) order by species`,
      [scope.ownerId, farmId],
    );
    return r.rows.map((x) => x.species);
  },

  /** The farms an owner enrolled live individuals into, most recently used first, at most `limit`. */
  async recentFarms(db: Queryable, scope: OwnerScope, limit: number): Promise<string[]> {
    const r = await db.query<{ farm_id: string }>(
      `select farm_id from individuals where owner_id = $1 and farm_id is not null and deleted_at is null
        group by farm_id order by max(created_at) desc, farm_id limit $2`,
      [scope.ownerId, limit],
    );
    return r.rows.map((x) => x.farm_id);
  },

  /** How many live individuals of each kind an owner has (kinds with none are left out). */
  async countsByKind(db: Queryable, scope: OwnerScope): Promise<{ kind: Kind; n: number }[]> {
    const r = await db.query<{ kind: Kind; n: number }>(
      'select kind, count(*)::int as n from individuals where owner_id = $1 and deleted_at is null group by kind',
      [scope.ownerId],
    );
    return r.rows.map((x) => ({ kind: x.kind, n: Number(x.n) }));
  },

  /** An owner's live animals of one farm, oldest enrolment first, with name and species. */
  async animalsOfFarm(
    db: Queryable,
    scope: OwnerScope,
    farmId: string,
  ): Promise<{ id: string; name: string | null; species: string | null }[]> {
    const r = await db.query<{ id: string; name: string | null; species: string | null }>(
      `select id, name, species from individuals where owner_id = $1 and farm_id = $2 and kind = 'animal' and deleted_at is null order by created_at`,
      [scope.ownerId, farmId],
    );
    return r.rows;
  },

  /** Name, species and farm of the live ones among `ids` (a deleted or unknown id is left out). */
  async labelsOf(db: Queryable, ids: readonly string[]): Promise<IndividualLabel[]> {
    const r = await db.query<IndividualLabel>(
      'select id, name, species, farm_id from individuals where id = any($1::uuid[]) and deleted_at is null',
      [[...ids]],
    );
    return r.rows;
  },
};

export type IndividualsRepo = typeof individualsRepo;
