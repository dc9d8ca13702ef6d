import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';
import { accessRepo } from '../repos/access.repo.js';
import type { OwnerScope } from './owner-scope.js';

/**
 * The owners whose individuals one search may match against. Matching crosses accounts only
 * through a grant, so every read over a search's gallery (the pool reads of the individuals and
 * descriptors repositories, the index and learned galleries) takes a `SearchPool` rather than a
 * list of ids, and a pool can only be made here: from the searcher's scope and the grants given to
 * it (`poolOwners`), or from the searcher's scope alone (`ownPool`).
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
 * The owners of the published fruit a public lookup searches: anyone's pool, but the gallery it
 * opens must be narrowed to those published individuals (their ids as the index filter), as
 * workers/src/handlers/fruit-public.handler.ts does; no account is asking.
 */
export function publishedPool(owners: readonly string[]): SearchPool {
  return make([...new Set(owners)]);
}

/** The searcher's own pool alone: training on its own photos, a species check within its own herd. */
export function ownPool(searcher: OwnerScope): SearchPool {
  return make([searcher.ownerId]);
}
