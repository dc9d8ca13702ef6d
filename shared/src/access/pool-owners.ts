import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

/**
 * The owner ids whose individuals of `kind` the account may match against: itself first, then
 * every owner with an active (unrevoked) grant to it, in a stable order. This is the only way
 * matching crosses accounts; identify code must build its search pool from this list and
 * nothing else. Read-only and read-write grants both count: matching is a read.
 */
export async function poolOwners(db: Queryable, accountId: string, kind: Kind = 'tree'): Promise<string[]> {
  const r = await db.query<{ owner_id: string }>(
    'select owner_id from grants where grantee_id = $1 and kind = $2 and revoked_at is null order by owner_id',
    [accountId, kind],
  );
  return [accountId, ...r.rows.map((g) => g.owner_id).filter((id) => id !== accountId)];
}
