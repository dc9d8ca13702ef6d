import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { treeIdOf } from './tree-ref.js';
import { individualAccess } from '../../../shared/src/access/standing.js';

/** A fruit as lists show it: its cover photo, its name, and its tree's name and printed code. */
export interface FruitSummary {
  fruit_id: string;
  /** What lists print for a fruit with no name: fruitShortCode(fruit_id). */
  short_code: string;
  name: string | null;
  species: string | null;
  farm_id: string | null;
  tree: { tree_id: string; name: string | null; code: string | null } | null;
  image_count: number;
  cover: { image_id: string; cid: string; url: string } | null;
  visibility: 'private' | 'restricted' | 'public';
  created_at: string;
}

/**
 * A fruit's short code: the first 8 characters of its id, upper-case. Fruit has no printed code of
 * its own, and a packing house reading a table or a CSV needs something shorter than a UUID to
 * tell unnamed fruit apart (issue 39); the same 8 characters start the id, so it can be found again.
 */
export const fruitShortCode = (id: string) => id.replace(/-/g, '').slice(0, 8).toUpperCase();

const COLUMNS = `f.id, f.name, f.species, f.visibility, f.farm_id, f.created_at, f.tree_id, t.name as tree_name,
  (select tr.code from tree_records tr where tr.individual_id = f.tree_id) as tree_code,
  (select count(*) from images im where im.individual_id = f.id)::int as image_count,
  (select json_build_object('image_id', im.id, 'cid', im.cid) from images im where im.individual_id = f.id order by im.created_at, im.id limit 1) as cover`;

function toSummary(r: Record<string, unknown>): FruitSummary {
  const cover = r.cover as { image_id: string; cid: string } | null;
  return {
    fruit_id: String(r.id),
    short_code: fruitShortCode(String(r.id)),
    name: (r.name as string) ?? null,
    species: (r.species as string) ?? null,
    farm_id: (r.farm_id as string) ?? null,
    tree: r.tree_id ? { tree_id: String(r.tree_id), name: (r.tree_name as string) ?? null, code: (r.tree_code as string) ?? null } : null,
    image_count: Number(r.image_count),
    cover: cover ? { ...cover, url: `/api/blobs/${cover.cid}` } : null,
    visibility: (r.visibility as FruitSummary['visibility']) ?? 'private',
    created_at: new Date(r.created_at as string).toISOString(),
  };
}

/** The owner's enrolled fruit (issue 24: enrolled fruit was listed nowhere). */
export function createFruitListService(c: Container) {
  const { db } = c;
  return {
    /**
     * One page, newest first. A tree filter (id or printed code) must name one of the caller's
     * trees: another account's tree is the same 404 as a tree that does not exist.
     */
    async list(ownerId: string, q: { tree_id?: string; farm_id?: string; fruit_id?: string; limit: number; offset: number }) {
      let treeId: string | null = null;
      if (q.tree_id) {
        treeId = await treeIdOf(db, q.tree_id);
        if ((await individualAccess(db, ownerId, treeId, 'tree', 'owner')).decision !== 'allow') throw ERRORS.notFound();
      }
      const where = `from individuals f left join individuals t on t.id = f.tree_id
        where f.owner_id = $1 and f.kind = 'fruit' and f.deleted_at is null
          and ($2::uuid is null or f.tree_id = $2) and ($3::text is null or f.farm_id = $3) and ($4::uuid is null or f.id = $4)`;
      const params = [ownerId, treeId, q.farm_id ?? null, q.fruit_id ?? null];
      const total = await db.query<{ n: number }>(`select count(*)::int as n ${where}`, params);
      const rows = await db.query<Record<string, unknown>>(
        `select ${COLUMNS} ${where} order by f.created_at desc, f.id limit $5 offset $6`,
        [...params, q.limit, q.offset],
      );
      return { fruit: rows.rows.map(toSummary), total: total.rows[0]!.n, limit: q.limit, offset: q.offset };
    },

    /**
     * Names, cover photos and tree codes for the fruit a batch's rows matched. Not owner-scoped:
     * those ids come only from the caller's own batch, whose search covered only fruit the caller
     * may read (their own, or on a tree shared with them), and the rows already name them.
     */
    async summaries(ids: string[]): Promise<Map<string, FruitSummary>> {
      if (!ids.length) return new Map();
      const rows = await db.query<Record<string, unknown>>(
        `select ${COLUMNS} from individuals f left join individuals t on t.id = f.tree_id where f.id = any($1::uuid[]) and f.kind = 'fruit'`,
        [ids],
      );
      return new Map(rows.rows.map((r) => [String(r.id), toSummary(r)]));
    },
  };
}
