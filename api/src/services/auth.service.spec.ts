import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { AccountRow } from '../../../shared/src/repos/accounts.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { challengeMessage, createAuthService, type AuthDeps } from './auth.service.js';
import { didKeyFromRaw } from './did.js';
import { DUMMY_HASH } from './passwords.js';

const db = strictMock<Queryable>({}, 'db');
const STRONG = 'Velvet-Lantern-Quarry-91';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const config: AuthDeps['config'] = {
  SIGNUP_OPEN: true,
  PASSWORD_MIN_SCORE: 3,
  TOKEN_TTL_S: 3600,
  SIGNUP_SOURCE_FAILURES: 10,
  LOGIN_FREE_FAILURES: 5,
  LOGIN_SOURCE_FAILURES: 20,
  LOGIN_ACCOUNT_FAILURES: 10,
  LOGIN_MAX_LOCK_S: 900,
  DID_CHALLENGE_PER_MIN: 2,
  DID_CHALLENGE_TTL_S: 300,
};
const row = (over: Partial<AccountRow> = {}): AccountRow =>
  ({
    id: 'acc-1',
    username: 'lan',
    password_hash: 'kdf$stored',
    did: null,
    created_at: new Date('2026-11-28T08:00:00Z'),
    ...over,
  }) as AccountRow;

/** Strict mocks of every port; the throttle lets everything through unless a test says otherwise. */
function setup(over: { [K in keyof AuthDeps]?: Partial<AuthDeps[K]> } = {}) {
  const inserted: { hash: string; account_id: string; via: string; ttlS: number }[] = [];
  const record = vi.fn(async () => {});
  const throttle = {
    checkLoginLock: vi.fn(async () => {}),
    recordLoginFailure: vi.fn(async () => null),
    clearLoginFailures: vi.fn(async () => {}),
    checkSignupLock: vi.fn(async () => {}),
    recordSignupFailure: vi.fn(async () => null),
    withHashSlot: (async (_c: string, fn: () => Promise<unknown>) => fn()) as AuthDeps['throttle']['withHashSlot'],
    ...over.throttle,
  };
  const passwords = { hash: vi.fn(async (p: string) => `kdf$${p.length}`), verify: vi.fn(async () => false), ...over.passwords };
  const deps = {
    db,
    accounts: strictMock<AuthDeps['accounts']>(over.accounts ?? {}, 'accounts'),
    tokens: strictMock<AuthDeps['tokens']>(
      { insert: vi.fn(async (_db: Queryable, t: (typeof inserted)[number]) => void inserted.push(t)), ...over.tokens },
      'tokens',
    ),
    didChallenges: strictMock<AuthDeps['didChallenges']>(over.didChallenges ?? {}, 'didChallenges'),
    activity: strictMock<AuthDeps['activity']>({ record }, 'activity'),
    individuals: strictMock<AuthDeps['individuals']>(over.individuals ?? {}, 'individuals'),
    rateLimits: strictMock<AuthDeps['rateLimits']>(over.rateLimits ?? {}, 'rateLimits'),
    throttle: strictMock<AuthDeps['throttle']>(throttle, 'throttle'),
    passwords: strictMock<AuthDeps['passwords']>(passwords, 'passwords'),
    config: { ...config, ...over.config },
  } as AuthDeps;
  return { auth: createAuthService(deps), inserted, record, throttle, passwords };
}

describe('auth service: sign-up', () => {
  it('refuses when sign-up is closed, and a weak password or a bad name, before hashing or writing anything', async () => {
    const closed = setup({ config: { SIGNUP_OPEN: false } });
    await expect(closed.auth.signup('lan', STRONG)).rejects.toMatchObject({ status: 403, code: 'signup_closed' });
    const open = setup();
    await expect(open.auth.signup('lan', 'password1')).rejects.toMatchObject({ status: 400 });
    await expect(open.auth.signup('Not A Name', STRONG)).rejects.toMatchObject({ status: 400 });
    expect(open.passwords.hash).not.toHaveBeenCalled();
    expect(open.inserted).toEqual([]);
  });

  it('stores the password only through the KDF and the session token only as its SHA-256', async () => {
    const insertWithPassword = vi.fn(async () => true);
    const { auth, inserted, record, passwords } = setup({ accounts: { insertWithPassword } });
    const s = await auth.signup('lan', STRONG, '10.0.0.1');
    expect(passwords.hash).toHaveBeenCalledWith(STRONG);
    expect(insertWithPassword).toHaveBeenCalledWith(db, { id: s.account.id, username: 'lan', password_hash: `kdf$${STRONG.length}` });
    expect(s).toMatchObject({ token_type: 'Bearer', expires_in: 3600, account: { username: 'lan', is_admin: false, did: null } });
    expect(s.token).toMatch(/^mkl_[\w-]{43}$/);
    expect(inserted).toEqual([{ hash: sha(s.token), account_id: s.account.id, via: 'password', ttlS: 3600 }]);
    expect(JSON.stringify(inserted)).not.toContain(s.token);
    expect(record).toHaveBeenCalledWith(db, s.account.id, 'session.issued', { via: 'password' });
  });

  it("counts a taken name against the address: 400 username_taken, or the throttle's answer once past its limit", async () => {
    const throttled = Object.assign(new Error('slow down'), { status: 429, code: 'signup_throttled' });
    const recordSignupFailure = vi.fn().mockResolvedValueOnce(null).mockResolvedValueOnce(throttled);
    const { auth, inserted } = setup({ accounts: { insertWithPassword: async () => false }, throttle: { recordSignupFailure } });
    await expect(auth.signup('lan', STRONG, '10.0.0.1')).rejects.toMatchObject({ status: 400, code: 'username_taken' });
    await expect(auth.signup('lan', STRONG, '10.0.0.1')).rejects.toBe(throttled);
    expect(recordSignupFailure).toHaveBeenCalledWith(db, '10.0.0.1', 10, 900);
    expect(inserted).toEqual([]);
  });
});

describe('auth service: login and tokens', () => {
  it('answers an unknown name and a wrong password the same 401, verifying against a dummy hash, and counts both', async () => {
    const byUsername = vi.fn(async (_db: Queryable, u: string) => (u === 'lan' ? row() : null));
    const { auth, passwords, throttle, inserted } = setup({ accounts: { byUsername } });
    const unknown = await auth.login('ghost', STRONG, '10.0.0.2').catch((e: unknown) => e);
    const wrong = await auth.login('lan', 'wrong-Password-77', '10.0.0.2').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(wrong).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(passwords.verify).toHaveBeenNthCalledWith(1, STRONG, DUMMY_HASH);
    expect(passwords.verify).toHaveBeenNthCalledWith(2, 'wrong-Password-77', 'kdf$stored');
    expect(throttle.recordLoginFailure).toHaveBeenCalledTimes(2);
    expect(throttle.recordLoginFailure).toHaveBeenLastCalledWith(db, '10.0.0.2', 'lan', {
      free: 5,
      sourceFree: 20,
      accountFree: 10,
      maxLockS: 900,
    });
    expect(throttle.clearLoginFailures).not.toHaveBeenCalled();
    expect(inserted).toEqual([]);
  });

  it('checks the lock before anything else, and a right password clears the failures and issues a token', async () => {
    const locked = Object.assign(new Error('locked'), { status: 429 });
    const lockedOut = setup({ throttle: { checkLoginLock: async () => Promise.reject(locked) } });
    await expect(lockedOut.auth.login('lan', STRONG)).rejects.toBe(locked);
    expect(lockedOut.passwords.verify).not.toHaveBeenCalled();
    const { auth, throttle, inserted } = setup({ accounts: { byUsername: async () => row() }, passwords: { verify: async () => true } });
    const s = await auth.login('lan', STRONG, '10.0.0.3');
    expect(throttle.clearLoginFailures).toHaveBeenCalledWith(db, '10.0.0.3', 'lan');
    expect(inserted[0]).toMatchObject({ hash: sha(s.token), account_id: 'acc-1', via: 'password' });
    // A name that cannot exist is refused before the lock or the database is asked.
    await expect(auth.login('../etc', STRONG)).rejects.toMatchObject({ status: 400 });
  });

  it('finds the caller of a token by its hash alone, and nobody for an unknown or revoked one', async () => {
    const accountOf = vi.fn(async (_db: Queryable, hash: string) =>
      hash === sha('mkl_good') ? { id: 'acc-1', username: 'lan', is_admin: true } : null,
    );
    const revoke = vi.fn(async () => {});
    const { auth } = setup({ tokens: { accountOf, revoke } });
    expect(await auth.callerFromToken('mkl_good')).toEqual({
      account_id: 'acc-1',
      username: 'lan',
      is_admin: true,
      token_hash: sha('mkl_good'),
    });
    expect(await auth.callerFromToken('mkl_other')).toBeNull();
    await auth.logout({ account_id: 'acc-1', token_hash: sha('mkl_good') } as Caller);
    expect(revoke).toHaveBeenCalledWith(db, sha('mkl_good'));
  });

  it('logs out everywhere by account, and answers the account, its farms and its kind counts only from its own id', async () => {
    const caller = { account_id: 'acc-1', username: 'lan', is_admin: false, token_hash: sha('mkl_good') } as Caller;
    const revokeAll = vi.fn(async () => 3);
    const byId = vi
      .fn()
      .mockResolvedValueOnce(row({ is_admin: true }))
      .mockResolvedValueOnce(null);
    const recentFarms = vi.fn(async () => ['farm-b', 'farm-a']);
    const countsByKind = vi.fn(async () => [{ kind: 'tree' as const, n: 4 }]);
    const { auth } = setup({ tokens: { revokeAll }, accounts: { byId }, individuals: { recentFarms, countsByKind } });
    expect(await auth.logoutAll(caller)).toBe(3);
    expect(revokeAll).toHaveBeenCalledWith(db, 'acc-1');
    expect(await auth.me(caller)).toEqual({
      id: 'acc-1',
      username: 'lan',
      is_admin: true,
      did: null,
      created_at: '2026-11-28T08:00:00.000Z',
    });
    // An account gone since its token was issued is a 401, not a 404 or a crash.
    await expect(auth.me(caller)).rejects.toMatchObject({ status: 401 });
    expect(await auth.farms(caller)).toEqual(['farm-b', 'farm-a']);
    expect(recentFarms).toHaveBeenCalledWith(db, scopeOfCaller(caller), 50);
    expect(await auth.kindCounts(caller)).toEqual({ tree: 4, fruit: 0, animal: 0 });
    expect(countsByKind).toHaveBeenCalledWith(db, scopeOfCaller(caller));
  });
});

describe('auth service: DID sign-in', () => {
  const key = () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const did = didKeyFromRaw(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
    return { did, signed: (nonce: string) => sign(null, Buffer.from(challengeMessage(nonce)), privateKey).toString('base64') };
  };

  it('meters challenges per address before creating one', async () => {
    const hit = vi.fn().mockResolvedValueOnce({ count: 1, resetMs: 60_000 }).mockResolvedValueOnce({ count: 3, resetMs: 30_000 });
    const create = vi.fn(async () => new Date('2026-11-28T08:05:00Z'));
    const { auth } = setup({ rateLimits: { hit }, didChallenges: { sweep: async () => {}, create } });
    const ok = await auth.didChallenge('10.0.0.4');
    expect(ok.message).toBe(challengeMessage(ok.nonce));
    expect(create).toHaveBeenCalledWith(db, { nonce: ok.nonce, ip: '10.0.0.4', ttlS: 300 });
    await expect(auth.didChallenge('10.0.0.4')).rejects.toMatchObject({ status: 429 });
    expect(create).toHaveBeenCalledTimes(1);
    expect(hit).toHaveBeenCalledWith('did:10.0.0.4', 60_000);
  });

  it('spends the nonce on every attempt: an unknown nonce and a wrong signature are refused and sign in nobody', async () => {
    const { did, signed } = key();
    const consume = vi.fn().mockResolvedValueOnce(false).mockResolvedValueOnce(true);
    const { auth, inserted } = setup({ didChallenges: { consume } });
    await expect(auth.didVerify(did, 'n1', signed('n1'))).rejects.toMatchObject({ status: 400, code: 'did_challenge_invalid' });
    await expect(auth.didVerify(did, 'n2', signed('another nonce'))).rejects.toMatchObject({ status: 401, code: 'did_signature_invalid' });
    expect(consume).toHaveBeenCalledWith(db, 'n2');
    expect(inserted).toEqual([]);
  });

  it("creates a key's account at its first sign-in only while sign-up is open; an existing key always signs in", async () => {
    const { did, signed } = key();
    const closed = setup({
      config: { SIGNUP_OPEN: false },
      didChallenges: { consume: async () => true },
      accounts: { byDid: async () => null },
    });
    await expect(closed.auth.didVerify(did, 'n3', signed('n3'))).rejects.toMatchObject({ status: 403, code: 'signup_closed' });
    expect(closed.inserted).toEqual([]);
    const existing = setup({
      config: { SIGNUP_OPEN: false },
      didChallenges: { consume: async () => true },
      accounts: { byDid: async () => row({ did, password_hash: null }) },
    });
    const s = await existing.auth.didVerify(did, 'n4', signed('n4'));
    expect(s.account).toMatchObject({ id: 'acc-1', did });
    expect(existing.inserted[0]).toMatchObject({ account_id: 'acc-1', via: 'did' });
  });
});
