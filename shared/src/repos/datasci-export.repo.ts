/**
 * The data-science export's reads: enrolled photos (live individuals) and identify answers with
 * their labels, each paged by (created_at, id) after a cursor, of one owner or of everyone (the
 * operator's export), and the counts that give a download its progress.
 *
 * Whose: an `OwnerScope` (the caller's own, or the one owner an operator chose), or `EveryOwner`,
 * which only an operator's choice makes (shared/src/access/owner-scope.ts scopeChosenByOperator).
 */
import type { EveryOwner, OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

export interface GalleryRow {
  image_id: string;
  cid: string;
  at: string;
  owner_id: string;
  individual_id: string;
  kind: string;
  species: string | null;
  farm_id: string | null;
  name: string | null;
  content_type: string | null;
  model: string | null;
  model_version: string | null;
  models: { name: string; version: string }[] | null;
}
export interface QueryRow {
  id: string;
  owner_id: string;
  kind: string;
  image_cids: string[];
  at: string;
  label: string | null;
  correct_id: string | null;
  result: {
    verdict?: string;
    candidates?: { individual_id: string; probability: number }[];
    model?: { name: string; version: string };
  } | null;
}

/** Whose records an export reads. */
export type ExportOwners = OwnerScope | EveryOwner;

/** `$1` is the owner, or null for every owner. */
const ownerClause = (alias: string) => `($1::uuid is null or ${alias}.owner_id = $1::uuid)`;

export const datasciExportRepo = {
  /** Enrolled photos of live individuals after the cursor, oldest first, with their blob's type and newest descriptor's models. */
  async galleryAfter(db: Queryable, owners: ExportOwners, at: string, id: string, limit: number): Promise<GalleryRow[]> {
    const r = await db.query<GalleryRow>(
      `select i.id as image_id, i.cid, i.created_at::text as at, i.owner_id, ind.id as individual_id, ind.kind, ind.species, ind.farm_id, ind.name,
              b.content_type, d.model, d.model_version, d.models
       from images i join individuals ind on ind.id = i.individual_id and ind.deleted_at is null
       left join blobs b on b.cid = i.cid
       left join lateral (select model, model_version, models from descriptors x where x.image_id = i.id order by x.created_at desc limit 1) d on true
       where ${ownerClause('i')} and (i.created_at, i.id) > ($2::timestamptz, $3::uuid)
       order by i.created_at, i.id limit $4`,
      [owners.ownerId, at, id, limit],
    );
    return r.rows;
  },

  /** Identify answers after the cursor, oldest first, with their owner's label. */
  async queriesAfter(db: Queryable, owners: ExportOwners, at: string, id: string, limit: number): Promise<QueryRow[]> {
    const r = await db.query<QueryRow>(
      `select q.id, q.owner_id, q.kind, q.image_cids, q.created_at::text as at, q.result, v.verdict as label, v.correct_id
       from identify_queries q left join identify_verdicts v on v.query_id = q.id and v.owner_id = q.owner_id
       where ${ownerClause('q')} and (q.created_at, q.id) > ($2::timestamptz, $3::uuid)
       order by q.created_at, q.id limit $4`,
      [owners.ownerId, at, id, limit],
    );
    return r.rows;
  },

  /** The stored content type of each of these blobs. */
  async contentTypes(db: Queryable, cids: readonly string[]): Promise<{ cid: string; content_type: string }[]> {
    const r = await db.query<{ cid: string; content_type: string }>('select cid, content_type from blobs where cid = any($1::text[])', [
      [...cids],
    ]);
    return r.rows;
  },

  /**
   * Enrolled photos of live individuals (`table` images) or identify answers (`identify_queries`) in
   * scope: all of them, or (`upTo`) those at or before the cursor.
   */
  async count(
    db: Queryable,
    table: 'images' | 'identify_queries',
    owners: ExportOwners,
    upTo: { at: string; id: string } | null,
  ): Promise<number> {
    const alias = table === 'images' ? 'i' : 'q';
    const join = table === 'images' ? ' join individuals ind on ind.id = i.individual_id and ind.deleted_at is null' : '';
    const r = await db.query<{ n: number }>(
      `select count(*)::int as n from ${table} ${alias}${join}
       where ${ownerClause(alias)} and ($2::boolean or (${alias}.created_at, ${alias}.id) <= ($3::timestamptz, $4::uuid))`,
      [owners.ownerId, upTo === null, upTo?.at ?? null, upTo?.id ?? null],
    );
    return r.rows[0]?.n ?? 0;
  },
};

export type DatasciExportRepo = typeof datasciExportRepo;
