/**
 * Statements on trees as their owners and the public see them: `individuals` of kind `tree` with
 * their printed code (`tree_records`), photo count and, for shared trees, the caller's grant.
 * Whether a caller may use a tree is decided in shared/src/access, not here.
 */
import type { Queryable } from '../ports/database.port.js';

/** A tree in a list: the individual's columns, its printed code, its photo count and the caller's grant. */
export interface TreeListRow {
  id: string;
  owner_id: string;
  farm_id: string | null;
  species: string | null;
  name: string | null;
  lat: number | null;
  lon: number | null;
  visibility: 'private' | 'restricted' | 'public';
  created_at: Date;
  /** The caller's active grant on the owner's trees; null on the caller's own trees. */
  access: 'read' | 'write' | null;
  code: string | null;
  image_count: number;
}

/** A live tree found by its printed code, with what the public pages may show of it. */
export interface TreeByCodeRow {
  individual_id: string;
  code: string;
  record_cbor: Uint8Array;
  record_cid: string;
  record_hash: string;
  visibility: 'private' | 'restricted' | 'public';
  species: string | null;
  name: string | null;
  farm_id: string | null;
  created_at: Date;
  /** The owner's published grower name (migration 197); null when none. */
  public_name: string | null;
}

export const treesRepo = {
  /** The live tree whose printed code is `code`, compared without regard to case; null when none. */
  async idByCode(db: Queryable, code: string): Promise<string | null> {
    const r = await db.query<{ individual_id: string }>(
      `select r.individual_id from tree_records r join individuals i on i.id = r.individual_id
        where upper(r.code) = upper($1) and i.deleted_at is null`,
      [code],
    );
    return r.rows[0]?.individual_id ?? null;
  },

  /**
   * The caller's live trees and, with `includeShared`, those of owners who granted the caller
   * trees; optionally on one farm. Oldest first.
   */
  async list(db: Queryable, callerId: string, opts: { farmId: string | null; includeShared: boolean }): Promise<TreeListRow[]> {
    const r = await db.query<TreeListRow>(
      `select i.id, i.owner_id, i.farm_id, i.species, i.name, i.lat, i.lon, i.visibility, i.created_at, g.access,
              (select tr.code from tree_records tr where tr.individual_id = i.id) as code,
              (select count(*) from images im where im.individual_id = i.id)::int as image_count
         from individuals i
         left join grants g on g.owner_id = i.owner_id and g.grantee_id = $1 and g.kind = 'tree' and g.revoked_at is null
        where i.kind = 'tree' and i.deleted_at is null
          and (i.owner_id = $1 or ($3::boolean and g.access is not null))
          and ($2::text is null or i.farm_id = $2)
        order by i.created_at, i.id`,
      [callerId, opts.farmId, opts.includeShared],
    );
    return r.rows.map((row) => ({ ...row, created_at: new Date(row.created_at), access: row.access ?? null }));
  },

  /** Sets an individual's (tree, fruit or animal) display name. */
  async setName(db: Queryable, id: string, name: string): Promise<void> {
    await db.query('update individuals set name = $2 where id = $1', [id, name]);
  },

  /** Sets an individual's visibility and stamps when it changed. */
  async setVisibility(db: Queryable, id: string, visibility: 'private' | 'restricted' | 'public'): Promise<void> {
    await db.query('update individuals set visibility = $2, visibility_changed_at = now() where id = $1', [id, visibility]);
  },

  /** The live tree with exactly this printed code, with its record and its owner's grower name; null when none. */
  async byCode(db: Queryable, code: string): Promise<TreeByCodeRow | null> {
    const r = await db.query<TreeByCodeRow>(
      `select r.individual_id, r.code, r.record_cbor, r.record_cid, r.record_hash,
              i.visibility, i.species, i.name, i.farm_id, i.created_at, a.public_name
         from tree_records r join individuals i on i.id = r.individual_id
         left join accounts a on a.id = i.owner_id
        where r.code = $1 and i.deleted_at is null and i.kind = 'tree'`,
      [code],
    );
    const row = r.rows[0];
    return row ? { ...row, record_cbor: new Uint8Array(row.record_cbor), created_at: new Date(row.created_at) } : null;
  },

  /** How many photos the server holds for an individual. */
  async imageCount(db: Queryable, individualId: string): Promise<number> {
    const r = await db.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [individualId]);
    return r.rows[0]?.n ?? 0;
  },

  /** Sets (or, with null, withdraws) the name shoppers read as the grower on the account's published trees. */
  async setGrowerName(db: Queryable, accountId: string, name: string | null): Promise<void> {
    await db.query('update accounts set public_name = $2 where id = $1', [accountId, name]);
  },

  /** The account's published grower name; null when none (or no such account). */
  async growerName(db: Queryable, accountId: string): Promise<string | null> {
    const r = await db.query<{ public_name: string | null }>('select public_name from accounts where id = $1', [accountId]);
    return r.rows[0]?.public_name ?? null;
  },
};

export type TreesRepo = typeof treesRepo;
