/**
 * The facts the access policy (shared/src/access/policy.ts) decides on: who owns an individual,
 * whether it is published, which grant an owner gave another account for a kind, and every
 * published fruit (the public lookup's gallery, the one search no account makes).
 */
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';
import type { GrantAccess } from '../access/policy.js';
import { isUuid } from '../domain/ids.js';

export interface IndividualFacts {
  id: string;
  owner_id: string;
  kind: Kind;
  farm_id: string | null;
  published: boolean;
}

export const accessRepo = {
  /** A live (not deleted) individual of `kind`, or undefined; an id that is not a UUID names none (asked without a query). */
  async liveIndividual(q: Queryable, id: string, kind: Kind): Promise<IndividualFacts | undefined> {
    if (!isUuid(id)) return undefined;
    const r = await q.query<{ id: string; owner_id: string; kind: Kind; farm_id: string | null; visibility: string }>(
      'select id, owner_id, kind, farm_id, visibility from individuals where id = $1 and kind = $2 and deleted_at is null',
      [id, kind],
    );
    const row = r.rows[0];
    return row && { id: row.id, owner_id: row.owner_id, kind: row.kind, farm_id: row.farm_id, published: row.visibility === 'public' };
  },

  /** Every published live fruit of every owner: the public lookup's gallery. */
  async publishedFruit(db: Queryable): Promise<{ id: string; owner_id: string }[]> {
    const r = await db.query<{ id: string; owner_id: string }>(
      `select id, owner_id from individuals where kind = 'fruit' and visibility = 'public' and deleted_at is null`,
    );
    return r.rows;
  },

  /** Whether the individual is published (its visibility is public); false when there is none. */
  async isPublished(q: Queryable, id: string): Promise<boolean> {
    const r = await q.query<{ visibility: string }>('select visibility from individuals where id = $1', [id]);
    return r.rows[0]?.visibility === 'public';
  },

  /** The unrevoked grant `ownerId` gave `granteeId` for `kind`, or null. */
  async grantAccess(q: Queryable, ownerId: string, granteeId: string, kind: Kind): Promise<GrantAccess | null> {
    const r = await q.query<{ access: GrantAccess }>(
      'select access from grants where owner_id = $1 and grantee_id = $2 and kind = $3 and revoked_at is null',
      [ownerId, granteeId, kind],
    );
    return r.rows[0]?.access ?? null;
  },

  /** The owners with an unrevoked grant of `kind` to `granteeId`, in a stable order. */
  async grantorsOf(q: Queryable, granteeId: string, kind: Kind): Promise<string[]> {
    const r = await q.query<{ owner_id: string }>(
      'select owner_id from grants where grantee_id = $1 and kind = $2 and revoked_at is null order by owner_id',
      [granteeId, kind],
    );
    return r.rows.map((g) => g.owner_id);
  },
};
