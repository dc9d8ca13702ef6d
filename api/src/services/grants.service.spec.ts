import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { GrantRow } from '../../../shared/src/repos/grants.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createGrantsService, type GrantsDeps } from './grants.service.js';

type Repo = GrantsDeps['grants'];
const db = strictMock<Queryable>({}, 'db');
const OWNER = '11111111-1111-4111-8111-111111111111';
const GRANTEE = '22222222-2222-4222-8222-222222222222';
const caller = { account_id: OWNER } as Caller;
const accounts = [
  { id: OWNER, username: 'owner' },
  { id: GRANTEE, username: 'grantee' },
];
/** The repository's account lookup over `accounts`, as the database answers it (ids in any case). */
const findAccount = vi.fn(async (_db: Queryable, ref: { id: string } | { username: string }) =>
  'id' in ref ? (accounts.find((a) => a.id === ref.id.toLowerCase()) ?? null) : (accounts.find((a) => a.username === ref.username) ?? null),
);
const at = new Date('2026-11-01T08:00:00Z');
const row = (over: Partial<GrantRow>): GrantRow => ({
  owner_id: OWNER,
  owner_name: 'owner',
  grantee_id: GRANTEE,
  grantee_name: 'grantee',
  kind: 'tree',
  access: 'read',
  created_at: at,
  updated_at: at,
  ...over,
});

describe('grants service: granting', () => {
  it('finds the grantee by username (case and spaces ignored) and writes the grant, answering it as the owner sees it', async () => {
    const upsert = vi.fn(async () => {});
    const activeOf = vi.fn(async () => [row({ kind: 'fruit' }), row({ access: 'write' })]);
    const s = createGrantsService({ db, grants: strictMock<Repo>({ findAccount, upsert, activeOf }) });
    expect(await s.grant(caller, '  GRANTEE ', 'tree', 'write')).toEqual({
      owner: { id: OWNER, username: 'owner' },
      grantee: { id: GRANTEE, username: 'grantee' },
      kind: 'tree',
      access: 'write',
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
    });
    expect(findAccount).toHaveBeenLastCalledWith(db, { username: 'grantee' });
    expect(upsert).toHaveBeenCalledWith(db, { owner: scopeOfCaller(caller), granteeId: GRANTEE, kind: 'tree', access: 'write' });
  });

  it('finds the grantee by account id', async () => {
    const s = createGrantsService({
      db,
      grants: strictMock<Repo>({ findAccount, upsert: async () => {}, activeOf: async () => [row({})] }),
    });
    await s.grant(caller, GRANTEE.toUpperCase(), 'tree', 'read');
    expect(findAccount).toHaveBeenLastCalledWith(db, { id: GRANTEE.toUpperCase() });
  });

  it('answers an unknown grantee, by name or id, 404 and writes nothing', async () => {
    const s = createGrantsService({ db, grants: strictMock<Repo>({ findAccount }) });
    for (const ref of ['nobody', '33333333-3333-4333-8333-333333333333'])
      await expect(s.grant(caller, ref, 'tree', 'read')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('refuses a grant to oneself with 400 grant_self and writes nothing', async () => {
    const s = createGrantsService({ db, grants: strictMock<Repo>({ findAccount }) });
    await expect(s.grant(caller, 'owner', 'animal', 'write')).rejects.toMatchObject({ status: 400, code: 'grant_self' });
  });
});

describe('grants service: revoking and listing', () => {
  it('revokes an active grant', async () => {
    const revoke = vi.fn(async () => true);
    const s = createGrantsService({ db, grants: strictMock<Repo>({ findAccount, revoke }) });
    await s.revoke(caller, 'grantee', 'fruit');
    expect(revoke).toHaveBeenCalledWith(db, { owner: scopeOfCaller(caller), granteeId: GRANTEE, kind: 'fruit' });
  });

  it('answers a grant that is missing or already revoked exactly as an unknown grantee: 404', async () => {
    const s = createGrantsService({ db, grants: strictMock<Repo>({ findAccount, revoke: async () => false }) });
    const missingGrant = await s.revoke(caller, 'grantee', 'tree').catch((e: unknown) => e);
    const missingAccount = await s.revoke(caller, 'nobody', 'tree').catch((e: unknown) => e);
    expect(missingGrant).toMatchObject({ status: 404, code: 'not_found' });
    expect(missingAccount).toEqual(missingGrant);
  });

  it('splits an account’s active grants into those it gave and those it received', async () => {
    const gave = row({ kind: 'animal' });
    const received = row({ owner_id: GRANTEE, owner_name: 'grantee', grantee_id: OWNER, grantee_name: 'owner' });
    const s = createGrantsService({ db, grants: strictMock<Repo>({ activeOf: async () => [gave, received] }) });
    const { given, received: got } = await s.list(OWNER);
    expect(given.map((g) => [g.grantee.username, g.kind])).toEqual([['grantee', 'animal']]);
    expect(got.map((g) => [g.owner.username, g.kind])).toEqual([['grantee', 'tree']]);
  });
});
