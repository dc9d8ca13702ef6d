import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { accountsRepo, didChallengesRepo, tokensRepo } from './accounts.repo.js';
import { adminGrantsRepo } from './admin-grants.repo.js';
import { individualsRepo } from './individuals.repo.js';

describe.each(BOTH_DATABASES)('accounts, tokens and DID challenges on $name', ({ open }) => {
  const db = () => opened.db;
  const [ana, bao] = [randomUUID(), randomUUID()];

  const opened = openDatabase(open);

  it('creates a password account once per username and reads it by name and id, admin only by grant', async () => {
    expect(await accountsRepo.insertWithPassword(db(), { id: ana, username: 'ana', password_hash: 'h1' })).toBe(true);
    expect(await accountsRepo.insertWithPassword(db(), { id: bao, username: 'ana', password_hash: 'h2' })).toBe(false);
    expect(await accountsRepo.byUsername(db(), 'ana')).toMatchObject({ id: ana, password_hash: 'h1', is_admin: false });
    await adminGrantsRepo.grant(db(), ana, 'operator');
    expect((await accountsRepo.byId(db(), ana))?.is_admin).toBe(true);
    expect(await accountsRepo.byUsername(db(), 'nobody')).toBeNull();
  });

  it('creates a DID account and finds it by its key; a taken name writes nothing', async () => {
    await accountsRepo.insertWithDid(db(), { id: bao, username: 'did_abc', did: 'did:key:z1' });
    await accountsRepo.insertWithDid(db(), { id: randomUUID(), username: 'did_abc', did: 'did:key:z2' });
    expect(await accountsRepo.byDid(db(), 'did:key:z1')).toMatchObject({ id: bao, username: 'did_abc', password_hash: null });
    expect(await accountsRepo.byDid(db(), 'did:key:z2')).toBeNull();
  });

  it('serves a token until it is revoked or expires, and revokes all of an account’s at once', async () => {
    await tokensRepo.insert(db(), { hash: 'h-live', account_id: ana, via: 'password', ttlS: 3600 });
    await tokensRepo.insert(db(), { hash: 'h-other', account_id: ana, via: 'did', ttlS: 3600 });
    await tokensRepo.insert(db(), { hash: 'h-bao', account_id: bao, via: 'did', ttlS: 3600 });
    await db().query(
      `insert into tokens (hash, account_id, via, expires_at) values ('h-old', $1, 'password', now() - interval '1 second')`,
      [ana],
    );
    expect(await tokensRepo.accountOf(db(), 'h-live')).toEqual({ id: ana, username: 'ana', is_admin: true });
    expect(await tokensRepo.accountOf(db(), 'h-old')).toBeNull();
    await tokensRepo.revoke(db(), 'h-live');
    expect(await tokensRepo.accountOf(db(), 'h-live')).toBeNull();
    // Every token not yet revoked counts, the expired one included.
    expect(await tokensRepo.revokeAll(db(), ana)).toBe(2);
    expect(await tokensRepo.accountOf(db(), 'h-other')).toBeNull();
    expect(await tokensRepo.accountOf(db(), 'h-bao')).toMatchObject({ id: bao });
  });

  it('uses a challenge up once, never an expired one, and sweeps the long dead', async () => {
    const expires = await didChallengesRepo.create(db(), { nonce: 'n1', ip: '10.0.0.1', ttlS: 300 });
    expect(expires.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await didChallengesRepo.consume(db(), 'n1')).toBe(true);
    expect(await didChallengesRepo.consume(db(), 'n1')).toBe(false);
    await db().query(
      `insert into did_challenges (nonce, ip, expires_at) values ('n-dead', 'x', now() - interval '2 days'), ('n-late', 'x', now() - interval '1 minute')`,
    );
    expect(await didChallengesRepo.consume(db(), 'n-late')).toBe(false);
    await didChallengesRepo.sweep(db());
    const left = await db().query<{ nonce: string }>('select nonce from did_challenges order by nonce');
    expect(left.rows.map((r) => r.nonce)).toEqual(['n-late', 'n1']);
  });

  it('lists the farms an owner uses, most recent first, and counts live individuals per kind', async () => {
    await db().query(
      `insert into individuals (id, owner_id, kind, farm_id, created_at, deleted_at) values
        ($1, $5, 'animal', 'a', now() - interval '2 days', null), ($2, $5, 'tree', 'b', now(), null),
        ($3, $5, 'tree', null, now(), null), ($4, $5, 'fruit', 'c', now(), now())`,
      [randomUUID(), randomUUID(), randomUUID(), randomUUID(), ana],
    );
    expect(await individualsRepo.recentFarms(db(), scopeOfJob({ owner_id: ana }), 50)).toEqual(['b', 'a']);
    expect(await individualsRepo.recentFarms(db(), scopeOfJob({ owner_id: ana }), 1)).toEqual(['b']);
    expect((await individualsRepo.countsByKind(db(), scopeOfJob({ owner_id: ana }))).sort((x, y) => x.kind.localeCompare(y.kind))).toEqual([
      { kind: 'animal', n: 1 },
      { kind: 'tree', n: 2 },
    ]);
  });
});
