/**
 * Statements on `individuals` (the trees, fruit and animals an owner enrolled). Whether a caller
 * may see or change one is the access policy's question (access.repo.ts); these reads serve the
 * owner's own data to the owner's own jobs.
 */
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export const individualsRepo = {
  /** Ids of an owner's live (not deleted) individuals of a kind. */
  async liveIdsOfKind(db: Queryable, ownerId: string, kind: Kind): Promise<string[]> {
    const r = await db.query<{ id: string }>('select id from individuals where owner_id = $1 and kind = $2 and deleted_at is null', [
      ownerId,
      kind,
    ]);
    return r.rows.map((x) => x.id);
  },
};
