import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { FruitListRepo, FruitListRow } from '../../../shared/src/repos/fruit-list.repo.js';
import type { individualAccess } from '../../../shared/src/access/standing.js';
import type { Caller } from '../http/route.js';
import type { TreeRef } from './tree-ref.js';

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

function toSummary(r: FruitListRow): FruitSummary {
  const cover = r.cover;
  return {
    fruit_id: r.id,
    short_code: fruitShortCode(r.id),
    name: r.name ?? null,
    species: r.species ?? null,
    farm_id: r.farm_id ?? null,
    tree: r.tree_id ? { tree_id: r.tree_id, name: r.tree_name ?? null, code: r.tree_code ?? null } : null,
    image_count: r.image_count,
    cover: cover ? { ...cover, url: `/api/blobs/${cover.cid}` } : null,
    visibility: r.visibility ?? 'private',
    created_at: r.created_at.toISOString(),
  };
}

/** What the fruit list uses. */
export interface FruitListDeps {
  db: Queryable;
  fruit: Pick<FruitListRepo, 'page' | 'byIds'>;
  /** A tree's id from its id or printed code (tree-ref.ts). */
  treeRef: TreeRef;
  /** The access policy's answer for an individual (shared/src/access/standing.ts). */
  access: typeof individualAccess;
}

/** The owner's enrolled fruit (issue 24: enrolled fruit was listed nowhere). */
export function createFruitListService(deps: FruitListDeps) {
  const { db, fruit } = deps;
  return {
    /**
     * One page, newest first. A tree filter (id or printed code) must name one of the caller's
     * trees: another account's tree is the same 404 as a tree that does not exist.
     */
    async list(caller: Caller, q: { tree_id?: string; farm_id?: string; fruit_id?: string; limit: number; offset: number }) {
      let treeId: string | null = null;
      if (q.tree_id) {
        treeId = await deps.treeRef(q.tree_id);
        if ((await deps.access(db, caller.account_id, treeId, 'tree', 'owner')).decision !== 'allow') throw ERRORS.notFound();
      }
      const filter = { treeId, farmId: q.farm_id ?? null, fruitId: q.fruit_id ?? null };
      const { rows, total } = await fruit.page(db, scopeOfCaller(caller), filter, { limit: q.limit, offset: q.offset });
      return { fruit: rows.map(toSummary), total, limit: q.limit, offset: q.offset };
    },

    /**
     * Names, cover photos and tree codes for the fruit a batch's rows matched. Not owner-scoped:
     * those ids come only from the caller's own batch, whose search covered only fruit the caller
     * may read (their own, or on a tree shared with them), and the rows already name them.
     */
    async summaries(ids: string[]): Promise<Map<string, FruitSummary>> {
      if (!ids.length) return new Map();
      const rows = await fruit.byIds(db, ids);
      return new Map(rows.map((r) => [r.id, toSummary(r)]));
    },
  };
}
