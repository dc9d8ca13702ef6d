/**
 * Statements behind the owner's fruit list: live `individuals` of kind `fruit` with their tree's
 * name and printed code (`tree_records`), photo count and first photo (`images`). Who may list
 * which fruit is decided by the service (the caller's own) and shared/src/access (a tree filter):
 * a page lists the caller's own fruit only, so it takes the caller's `OwnerScope`.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

/** A fruit as lists show it, as the database holds it. */
export interface FruitListRow {
  id: string;
  name: string | null;
  species: string | null;
  visibility: 'private' | 'restricted' | 'public';
  farm_id: string | null;
  created_at: Date;
  tree_id: string | null;
  tree_name: string | null;
  tree_code: string | null;
  image_count: number;
  /** The first photo, oldest first (ties by id); null without photos. */
  cover: { image_id: string; cid: string } | null;
}

/** Which of an owner's fruit a page lists: all, or those on one tree, on one farm, or one fruit. */
export interface FruitFilter {
  treeId: string | null;
  farmId: string | null;
  fruitId: string | null;
}

const COLUMNS = `f.id, f.name, f.species, f.visibility, f.farm_id, f.created_at, f.tree_id, t.name as tree_name,
  (select tr.code from tree_records tr where tr.individual_id = f.tree_id) as tree_code,
  (select count(*) from images im where im.individual_id = f.id)::int as image_count,
  (select json_build_object('image_id', im.id, 'cid', im.cid) from images im where im.individual_id = f.id order by im.created_at, im.id limit 1) as cover`;

const FROM = 'from individuals f left join individuals t on t.id = f.tree_id';

const typed = (rows: FruitListRow[]) => rows.map((r) => ({ ...r, created_at: new Date(r.created_at), image_count: Number(r.image_count) }));

export const fruitListRepo = {
  /** One page of the scope's account's live fruit matching `filter`, newest first, and how many match in all. */
  async page(
    db: Queryable,
    scope: OwnerScope,
    filter: FruitFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: FruitListRow[]; total: number }> {
    const where = `${FROM}
        where f.owner_id = $1 and f.kind = 'fruit' and f.deleted_at is null
          and ($2::uuid is null or f.tree_id = $2) and ($3::text is null or f.farm_id = $3) and ($4::uuid is null or f.id = $4)`;
    const params = [scope.ownerId, filter.treeId, filter.farmId, filter.fruitId];
    const total = await db.query<{ n: number }>(`select count(*)::int as n ${where}`, params);
    const rows = await db.query<FruitListRow>(`select ${COLUMNS} ${where} order by f.created_at desc, f.id limit $5 offset $6`, [
      ...params,
      page.limit,
      page.offset,
    ]);
    return { rows: typed(rows.rows), total: total.rows[0]!.n };
  },

  /** The fruit among `ids` (deleted ones too: a batch row still names them), whoever owns them. */
  async byIds(db: Queryable, ids: readonly string[]): Promise<FruitListRow[]> {
    if (!ids.length) return [];
    const r = await db.query<FruitListRow>(`select ${COLUMNS} ${FROM} where f.id = any($1::uuid[]) and f.kind = 'fruit'`, [ids]);
    return typed(r.rows);
  },
};

export type FruitListRepo = typeof fruitListRepo;
