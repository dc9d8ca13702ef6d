import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { isUuid } from '../../../shared/src/domain/ids.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { GrantAccess } from '../../../shared/src/access/policy.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { GrantsRepo } from '../../../shared/src/repos/grants.repo.js';
import type { Caller } from '../http/route.js';

export type { GrantAccess, Standing } from '../../../shared/src/access/policy.js';
export { standingFor } from '../../../shared/src/access/standing.js';
export { poolOwners } from '../../../shared/src/access/pool-owners.js';

/** One grant as its owner or its grantee sees it. */
export interface GrantView {
  owner: { id: string; username: string };
  grantee: { id: string; username: string };
  kind: Kind;
  access: GrantAccess;
  created_at: string;
  updated_at: string;
}

/** What the grants service uses: the database handle and the grants repository. */
export interface GrantsDeps {
  db: Queryable;
  grants: Pick<GrantsRepo, 'findAccount' | 'activeOf' | 'upsert' | 'revoke'>;
}

/** Grants: an owner shares one kind of individual with another account, read-only or read-write. */
export function createGrantsService({ db, grants }: GrantsDeps) {
  /** The grantee by account id or username (any case, spaces around ignored); an unknown one is the usual 404. */
  async function findAccount(ref: string): Promise<{ id: string; username: string }> {
    const account = await grants.findAccount(db, isUuid(ref) ? { id: ref } : { username: ref.trim().toLowerCase() });
    if (!account) throw ERRORS.notFound();
    return account;
  }

  async function list(accountId: string): Promise<{ given: GrantView[]; received: GrantView[] }> {
    const views = (await grants.activeOf(db, accountId)).map((g) => ({
      owner: { id: g.owner_id, username: g.owner_name },
      grantee: { id: g.grantee_id, username: g.grantee_name },
      kind: g.kind,
      access: g.access,
      created_at: g.created_at.toISOString(),
      updated_at: g.updated_at.toISOString(),
    }));
    return { given: views.filter((v) => v.owner.id === accountId), received: views.filter((v) => v.grantee.id === accountId) };
  }

  return {
    /** Share the caller's individuals of `kind` with `granteeRef`; granting again changes the access level. */
    async grant(caller: Caller, granteeRef: string, kind: Kind, access: GrantAccess): Promise<GrantView> {
      const owner = scopeOfCaller(caller);
      const grantee = await findAccount(granteeRef);
      if (grantee.id === owner.ownerId) throw new AppError(400, 'grant_self');
      await grants.upsert(db, { owner, granteeId: grantee.id, kind, access });
      return (await list(owner.ownerId)).given.find((g) => g.grantee.id === grantee.id && g.kind === kind)!;
    },

    /** Withdraw a grant the caller gave. Revoking one that does not exist (or is already revoked) is a 404. */
    async revoke(caller: Caller, granteeRef: string, kind: Kind): Promise<void> {
      const grantee = await findAccount(granteeRef);
      if (!(await grants.revoke(db, { owner: scopeOfCaller(caller), granteeId: grantee.id, kind }))) throw ERRORS.notFound();
    },

    list,
  };
}

export type GrantsService = ReturnType<typeof createGrantsService>;
