/**
 * Statements on `grants`: an owner sharing one kind of individual with another account. One row
 * per (owner, grantee, kind); revoking keeps the row (`revoked_at`) and granting again clears it.
 * Who may read what through a grant is decided in shared/src/access, not here.
 *
 * Granting and revoking (`upsert`, `revoke`) act for the granting owner, who is the caller: they take
 * the owner's `OwnerScope`, made from who is asking (shared/src/access/owner-scope.ts). The grantee
 * stays an account id, another account the owner names on purpose. `activeOf` reads the grants an
 * account gave or received, both ways, so it takes the account id.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { GrantAccess } from '../access/policy.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

/** An active grant with both accounts' usernames, as the database holds it. */
export interface GrantRow {
  owner_id: string;
  owner_name: string;
  grantee_id: string;
  grantee_name: string;
  kind: Kind;
  access: GrantAccess;
  created_at: Date;
  updated_at: Date;
}

export const grantsRepo = {
  /** An account by its id (a UUID, which the caller has checked) or its username (as stored: lower case). */
  async findAccount(db: Queryable, ref: { id: string } | { username: string }): Promise<{ id: string; username: string } | null> {
    const byId = 'id' in ref;
    const r = await db.query<{ id: string; username: string }>(
      `select id, username from accounts where ${byId ? 'id = $1::uuid' : 'username = $1'}`,
      [byId ? ref.id : ref.username],
    );
    return r.rows[0] ?? null;
  },

  /** Every active grant the account gave or received, oldest first. */
  async activeOf(db: Queryable, accountId: string): Promise<GrantRow[]> {
    const r = await db.query<GrantRow>(
      `select g.owner_id, o.username as owner_name, g.grantee_id, e.username as grantee_name, g.kind, g.access, g.created_at, g.updated_at
         from grants g join accounts o on o.id = g.owner_id join accounts e on e.id = g.grantee_id
        where (g.owner_id = $1 or g.grantee_id = $1) and g.revoked_at is null
        order by g.created_at`,
      [accountId],
    );
    return r.rows.map((g) => ({ ...g, created_at: new Date(g.created_at), updated_at: new Date(g.updated_at) }));
  },

  /** The owner grants `kind` to the grantee at `access`: a new row, or the existing one changed and un-revoked. */
  async upsert(db: Queryable, g: { owner: OwnerScope; granteeId: string; kind: Kind; access: GrantAccess }): Promise<void> {
    await db.query(
      `insert into grants (owner_id, grantee_id, kind, access) values ($1, $2, $3, $4)
       on conflict (owner_id, grantee_id, kind)
       do update set access = excluded.access, revoked_at = null, updated_at = now()`,
      [g.owner.ownerId, g.granteeId, g.kind, g.access],
    );
  },

  /** Revokes an active grant the owner gave; answers whether there was one. */
  async revoke(db: Queryable, g: { owner: OwnerScope; granteeId: string; kind: Kind }): Promise<boolean> {
    const r = await db.query(
      'update grants set revoked_at = now(), updated_at = now() where owner_id = $1 and grantee_id = $2 and kind = $3 and revoked_at is null',
      [g.owner.ownerId, g.granteeId, g.kind],
    );
    return r.affectedRows > 0;
  },
};

export type GrantsRepo = typeof grantsRepo;
