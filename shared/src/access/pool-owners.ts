import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';
import { accessRepo } from '../repos/access.repo.js';

/**
 * The owner ids whose individuals of `kind` the account may match against: itself first, then
 * every owner with an active (unrevoked) grant to it, in a stable order. This is the only way
 * matching crosses accounts; identify code must build its search pool from this list and
 * nothing else. Read-only and read-write grants both count: matching is a read.
 */
export async function poolOwners(db: Queryable, accountId: string, kind: Kind = 'tree'): Promise<string[]> {
  const grantors = await accessRepo.grantorsOf(db, accountId, kind);
  return [accountId, ...grantors.filter((id) => id !== accountId)];
}
