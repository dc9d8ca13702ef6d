import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';
import { accessRepo } from '../repos/access.repo.js';
import type { OwnerScope } from './owner-scope.js';

/**
 * The owners whose individuals one search may match against. Matching crosses accounts only
 * through a grant, so every read over a search's gallery (the pool reads of the individuals and
 * descriptors repositories, the index and learned galleries) takes a `SearchPool` rather than a
 * list of ids, and a pool can only be made here: from the searcher's scope and the grants given to
 * it (`poolOwners`), from the searcher's scope alone (`ownPool`), or, for the public fruit lookup
 * where no account is asking, from the published fruit themselves (`publishedFruitPool`).
 *
 * The brand is a module-private symbol, as `OwnerScope`'s is; the architecture spec refuses an
 * `as SearchPool` cast outside this folder.
 */
declare const brand: unique symbol;

export type SearchPool = readonly string[] & { readonly [brand]: 'SearchPool' };

const make = (ids: readonly string[]): SearchPool => Object.freeze([...ids]) as unknown as SearchPool;

/**
 * The searcher itself first, then every owner with an active (unrevoked) grant of `kind` to it, in
 * a stable order. Read-only and read-write grants both count: matching is a read.
 */
export async function poolOwners(db: Queryable, searcher: OwnerScope, kind: Kind = 'tree'): Promise<SearchPool> {
  const grantors = await accessRepo.grantorsOf(db, searcher.ownerId, kind);
  return make([searcher.ownerId, ...grantors.filter((id) => id !== searcher.ownerId)]);
}

/**
 * Every published live fruit and the pool of their owners: what the public fruit lookup searches.
 * The pool spans accounts, so the gallery it opens must be narrowed to `fruit` (their ids as the
 * index filter), as workers/src/handlers/fruit-public.handler.ts does. The pool is read here, from
 * the published rows, so no caller can hand it an owner of its own choosing.
 */
export async function publishedFruitPool(db: Queryable): Promise<{ pool: SearchPool; fruit: { id: string; owner_id: string }[] }> {
  const fruit = await accessRepo.publishedFruit(db);
  return { pool: make([...new Set(fruit.map((r) => r.owner_id))]), fruit };
}

/** The searcher's own pool alone: training on its own photos, a species check within its own herd. */
export function ownPool(searcher: OwnerScope): SearchPool {
  return make([searcher.ownerId]);
}
