import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Config } from '../../../shared/src/config/config.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { RateLimitStore } from '../../../shared/src/ports/rate-limit.port.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { enforceRateLimit } from '../middleware/rate-limit.js';
import type { Caller } from '../http/route.js';
import type * as loginThrottle from './login-throttle.js';
import { brokenRule, DUMMY_HASH, USERNAME, type hashPassword, type verifyPassword } from './passwords.js';
import { verifyDidSignature } from './did.js';
import type { accountsRepo, AccountRow, didChallengesRepo, tokensRepo } from '../../../shared/src/repos/accounts.repo.js';
import type { ActivityEventsRepo } from '../../../shared/src/repos/activity-events.repo.js';
import type { IndividualsRepo } from '../../../shared/src/repos/individuals.repo.js';

export interface Account {
  id: string;
  username: string;
  is_admin: boolean;
  did: string | null;
  created_at: string;
}

export interface Session {
  token: string;
  token_type: 'Bearer';
  expires_in: number;
  account: Account;
}

export const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');
/** The exact text a DID client signs for a challenge nonce. */
export const challengeMessage = (nonce: string) => `markless sign-in ${nonce}`;

export interface AuthDeps {
  db: Queryable;
  accounts: typeof accountsRepo;
  tokens: typeof tokensRepo;
  didChallenges: typeof didChallengesRepo;
  activity: Pick<ActivityEventsRepo, 'record'>;
  individuals: Pick<IndividualsRepo, 'recentFarms' | 'countsByKind'>;
  /** Meters DID challenges per address. */
  rateLimits: RateLimitStore;
  /** login-throttle's locks and failure counts (on `db`) and its hashing slots. */
  throttle: Pick<
    typeof loginThrottle,
    'checkLoginLock' | 'recordLoginFailure' | 'clearLoginFailures' | 'checkSignupLock' | 'recordSignupFailure' | 'withHashSlot'
  >;
  /** The memory-hard KDF (passwords.ts). */
  passwords: { hash: typeof hashPassword; verify: typeof verifyPassword };
  config: Pick<
    Config,
    | 'SIGNUP_OPEN'
    | 'PASSWORD_MIN_SCORE'
    | 'TOKEN_TTL_S'
    | 'SIGNUP_SOURCE_FAILURES'
    | 'LOGIN_FREE_FAILURES'
    | 'LOGIN_SOURCE_FAILURES'
    | 'LOGIN_ACCOUNT_FAILURES'
    | 'LOGIN_MAX_LOCK_S'
    | 'DID_CHALLENGE_PER_MIN'
    | 'DID_CHALLENGE_TTL_S'
  >;
}

/** Accounts, sessions and DID sign-in. Tokens are random; only their SHA-256 is ever stored. */
export function createAuthService(deps: AuthDeps) {
  const { db, config, accounts: accountsRepo, tokens: tokensRepo, didChallenges: didChallengesRepo } = deps;
  const { checkLoginLock, recordLoginFailure, clearLoginFailures, checkSignupLock, recordSignupFailure, withHashSlot } = deps.throttle;
  const { hash: hashPassword, verify: verifyPassword } = deps.passwords;
  const throttle = {
    free: config.LOGIN_FREE_FAILURES,
    sourceFree: config.LOGIN_SOURCE_FAILURES,
    accountFree: config.LOGIN_ACCOUNT_FAILURES,
    maxLockS: config.LOGIN_MAX_LOCK_S,
  };
  const toAccount = (r: AccountRow): Account => ({
    id: r.id,
    username: r.username,
    is_admin: r.is_admin === true,
    did: r.did,
    created_at: new Date(r.created_at).toISOString(),
  });

  async function issue(row: AccountRow, via: string): Promise<Session> {
    const token = `mkl_${randomBytes(32).toString('base64url')}`;
    await tokensRepo.insert(db, { hash: sha256hex(token), account_id: row.id, via, ttlS: config.TOKEN_TTL_S });
    await logActivity(row.id, 'session.issued', { via });
    return { token, token_type: 'Bearer', expires_in: config.TOKEN_TTL_S, account: toAccount(row) };
  }

  const logActivity = (owner: string | null, action: string, detail: Record<string, unknown> = {}) =>
    deps.activity.record(db, owner, action, detail);

  /**
   * The account of a did:key, created at its first sign-in (only while sign-up is open). The username is derived from the key,
   * and the key is public: anyone could sign up that name first. On any conflict other than the
   * key's own row, a random suffix is tried, so a squatted name cannot lock the key out.
   */
  async function accountForDid(did: string): Promise<AccountRow> {
    const existing = await accountsRepo.byDid(db, did);
    if (existing) return existing;
    // A key with no account is a sign-up: closed sign-up closes this door too.
    if (!config.SIGNUP_OPEN) throw ERRORS.rule('signup_closed', 403);
    const base = `did_${sha256hex(did).slice(0, 16)}`;
    for (const username of [base, `${base}_${randomBytes(4).toString('hex')}`]) {
      await accountsRepo.insertWithDid(db, { id: randomUUID(), username, did });
      const row = await accountsRepo.byDid(db, did);
      if (row) return row;
    }
    throw ERRORS.internal();
  }

  return {
    logActivity,

    async signup(username: string, password: string, client = 'local'): Promise<Session> {
      if (!config.SIGNUP_OPEN) throw ERRORS.rule('signup_closed', 403);
      const rule = brokenRule(username, password, config.PASSWORD_MIN_SCORE);
      if (rule) throw ERRORS.rule(rule);
      await checkSignupLock(db, client);
      const hash = await withHashSlot(client, () => hashPassword(password));
      const row: AccountRow = { id: randomUUID(), username, password_hash: hash, did: null, created_at: new Date() };
      const inserted = await accountsRepo.insertWithPassword(db, { id: row.id, username, password_hash: hash });
      // The spec lists every signup rule failure as 400, a taken name included; a taken name is
      // also what tells a prober that an account exists, so it counts against the address.
      if (!inserted) {
        throw (
          (await recordSignupFailure(db, client, config.SIGNUP_SOURCE_FAILURES, config.LOGIN_MAX_LOCK_S)) ??
          new AppError(400, 'username_taken')
        );
      }
      return issue(row, 'password');
    },

    async login(username: string, password: string, client = 'local'): Promise<Session> {
      if (!USERNAME.test(username)) throw ERRORS.rule('username_invalid');
      await checkLoginLock(db, client, username);
      const row = await accountsRepo.byUsername(db, username);
      // Verify against a dummy hash for unknown users so timing does not reveal which usernames exist.
      const ok = await withHashSlot(client, () => verifyPassword(password, row?.password_hash ?? DUMMY_HASH));
      if (!row || !row.password_hash || !ok) {
        // Unknown usernames are throttled too, so a lock says nothing about which accounts exist.
        throw (await recordLoginFailure(db, client, username, throttle)) ?? new AppError(401, 'invalid_credentials');
      }
      await clearLoginFailures(db, client, username);
      return issue(row, 'password');
    },

    async callerFromToken(token: string): Promise<Caller | null> {
      const hash = sha256hex(token);
      const row = await tokensRepo.accountOf(db, hash);
      return row ? { account_id: row.id, username: row.username, is_admin: row.is_admin === true, token_hash: hash } : null;
    },

    async logout(caller: Caller): Promise<void> {
      await tokensRepo.revoke(db, caller.token_hash);
    },

    async logoutAll(caller: Caller): Promise<number> {
      return tokensRepo.revokeAll(db, caller.account_id);
    },

    async me(caller: Caller): Promise<Account> {
      const row = await accountsRepo.byId(db, caller.account_id);
      if (!row) throw ERRORS.unauthorized();
      return toAccount(row);
    },

    /** The farms the account enrolled into, most recently used first: the app's farm, on every device. */
    async farms(caller: Caller): Promise<string[]> {
      return deps.individuals.recentFarms(db, scopeOfCaller(caller), 50);
    },

    /** How many live individuals of each kind the account owns: the app shows the tabs it uses first. */
    async kindCounts(caller: Caller): Promise<Record<'tree' | 'fruit' | 'animal', number>> {
      const counts = { tree: 0, fruit: 0, animal: 0 };
      for (const x of await deps.individuals.countsByKind(db, scopeOfCaller(caller))) counts[x.kind] = x.n;
      return counts;
    },

    async didChallenge(ip: string) {
      await enforceRateLimit(deps.rateLimits, `did:${ip}`, config.DID_CHALLENGE_PER_MIN, 60_000);
      // Challenges are dead a day after they expire; sweeping here keeps the table from growing forever.
      await didChallengesRepo.sweep(db);
      const nonce = randomBytes(24).toString('base64url');
      const expires = await didChallengesRepo.create(db, { nonce, ip, ttlS: config.DID_CHALLENGE_TTL_S });
      return { nonce, message: challengeMessage(nonce), expires_at: expires.toISOString() };
    },

    async didVerify(did: string, nonce: string, signature: string): Promise<Session> {
      // Consumed on any attempt, right or wrong: a nonce can never be tried twice.
      if (!(await didChallengesRepo.consume(db, nonce))) throw ERRORS.rule('did_challenge_invalid');
      if (!verifyDidSignature(did, challengeMessage(nonce), signature)) throw new AppError(401, 'did_signature_invalid');
      return issue(await accountForDid(did), 'did');
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
