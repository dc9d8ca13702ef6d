import type { Container } from '../../../shared/src/container.js';
import { isUuid } from '../../../shared/src/domain/ids.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';

import type { GrantAccess } from '../../../shared/src/access/policy.js';

export type { GrantAccess, Standing } from '../../../shared/src/access/policy.js';
export { standingFor } from '../../../shared/src/access/standing.js';

/** One grant as its owner or its grantee sees it. */
export interface GrantView {
  owner: { id: string; username: string };
  grantee: { id: string; username: string };
  kind: Kind;
  access: GrantAccess;
  created_at: string;
  updated_at: string;
}

import { poolOwners } from '../../../shared/src/access/pool-owners.js';

export { poolOwners };

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : String(d));

/** Grants: an owner shares one kind of individual with another account, read-only or read-write. */
export function createGrantsService(c: Container) {
  const { db } = c;

  /** The grantee by username or account id; an unknown one is the usual 404. */
  async function findAccount(ref: string): Promise<{ id: string; username: string }> {
    const byId = isUuid(ref);
    const r = await db.query<{ id: string; username: string }>(
      `select id, username from accounts where ${byId ? 'id = $1::uuid' : 'username = $1'}`,
      [byId ? ref : ref.trim().toLowerCase()],
    );
    if (!r.rows[0]) throw ERRORS.notFound();
    return r.rows[0];
  }

  async function list(accountId: string): Promise<{ given: GrantView[]; received: GrantView[] }> {
    const r = await db.query<Record<string, unknown>>(
      `select g.owner_id, o.username as owner_name, g.grantee_id, e.username as grantee_name, g.kind, g.access, g.created_at, g.updated_at
         from grants g join accounts o on o.id = g.owner_id join accounts e on e.id = g.grantee_id
        where (g.owner_id = $1 or g.grantee_id = $1) and g.revoked_at is null
        order by g.created_at`,
      [accountId],
    );
    const views = r.rows.map((g) => ({
      owner: { id: String(g.owner_id), username: String(g.owner_name) },
      grantee: { id: String(g.grantee_id), username: String(g.grantee_name) },
      kind: g.kind as Kind,
      access: g.access as GrantAccess,
      created_at: iso(g.created_at),
      updated_at: iso(g.updated_at),
    }));
    return { given: views.filter((v) => v.owner.id === accountId), received: views.filter((v) => v.grantee.id === accountId) };
  }

  return {
    /** Share `ownerId`'s individuals of `kind` with `granteeRef`; granting again changes the access level. */
    async grant(ownerId: string, granteeRef: string, kind: Kind, access: GrantAccess): Promise<GrantView> {
      const grantee = await findAccount(granteeRef);
      if (grantee.id === ownerId) throw new AppError(400, 'grant_self');
      await db.query(
        `insert into grants (owner_id, grantee_id, kind, access) values ($1, $2, $3, $4)
         on conflict (owner_id, grantee_id, kind)
         do update set access = excluded.access, revoked_at = null, updated_at = now()`,
        [ownerId, grantee.id, kind, access],
      );
      return (await list(ownerId)).given.find((g) => g.grantee.id === grantee.id && g.kind === kind)!;
    },

    /** Withdraw a grant. Revoking one that does not exist (or is already revoked) is a 404. */
    async revoke(ownerId: string, granteeRef: string, kind: Kind): Promise<void> {
      const grantee = await findAccount(granteeRef);
      const r = await db.query(
        'update grants set revoked_at = now(), updated_at = now() where owner_id = $1 and grantee_id = $2 and kind = $3 and revoked_at is null',
        [ownerId, grantee.id, kind],
      );
      if (r.affectedRows === 0) throw ERRORS.notFound();
    },

    list,
    poolOwners: (accountId: string, kind: Kind = 'tree') => poolOwners(db, accountId, kind),
  };
}

export type GrantsService = ReturnType<typeof createGrantsService>;
