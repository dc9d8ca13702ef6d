/**
 * Sign-in abuse controls. Two separate things:
 * - a failure throttle kept in the database (so every API process shares it), built so that a
 *   stranger who knows a username cannot lock its owner out:
 *   - per address and username (strict): after `free` wrong passwords in a row that address is
 *     locked for that name with exponential back-off (30 s, 60 s, ... at most `maxLockS`), 429 with
 *     Retry-After, even for the right password;
 *   - per address (all names): after `sourceFree` failures the address is locked for every name
 *     (password spraying), with the same back-off;
 *   - per username (all addresses): after `accountFree` failures sign-in for that name is only
 *     slowed, with back-off, for addresses that have failed before; an address without failures
 *     (the owner at home) is always let through to the password check;
 *   unknown usernames count the same way, so a 429 says nothing about which accounts exist; a
 *   key's count restarts after {@link FAILURE_WINDOW_S} without failures;
 * - a bound on concurrent scrypt work ({@link withHashSlot}): scrypt takes 32 MiB and ~100 ms of
 *   a libuv thread, so a flood of logins from one address could starve everyone. At most
 *   {@link HASH_CONCURRENCY} hashes run at once, and one address may hold at most
 *   {@link HASH_PER_CLIENT} places (running or queued); past that it gets 429 at once.
 */
import { loginFailuresRepo } from '../../../shared/src/repos/login-failures.repo.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';

export interface ThrottleRules {
  /** Failures in a row one address may make on one username before it is locked for it. */
  free: number;
  /** Failures one address may make across all usernames before it is locked for all. */
  sourceFree: number;
  /** Failures on one username from all addresses before addresses that failed are slowed. */
  accountFree: number;
  maxLockS: number;
}
export const DEFAULT_THROTTLE: ThrottleRules = { free: 5, sourceFree: 20, accountFree: 10, maxLockS: 900 };
export const FREE_FAILURES = DEFAULT_THROTTLE.free;
const BASE_LOCK_S = 30;
const FAILURE_WINDOW_S = 3600;
export const HASH_CONCURRENCY = 2;
export const HASH_PER_CLIENT = 3;

const lockedError = (retryAfterS: number, code: 'login_locked' | 'login_throttled' | 'signup_throttled' = 'login_locked') =>
  new AppError(429, code, { retry_after: retryAfterS }, { 'Retry-After': String(retryAfterS) });

const keys = (source: string, username: string) => ({ pair: `sa:${source}|${username}`, source: `s:${source}`, account: `a:${username}` });
const lockFor = (failures: number, free: number, maxS: number) => Math.min(maxS, BASE_LOCK_S * 2 ** (failures - free));

/** 429 when sign-in for `username` from `source` must wait now; otherwise the password may be checked. */
export async function checkLoginLock(db: Queryable, source: string, username: string): Promise<void> {
  const k = keys(source, username);
  const rows = await loginFailuresRepo.state(db, [k.pair, k.source, k.account], FAILURE_WINDOW_S);
  const row = (key: string) => rows.find((x) => x.key === key);
  const wait = (key: string) => row(key)?.s ?? null;
  const pair = wait(k.pair);
  if (pair !== null) throw lockedError(Math.max(1, pair));
  const src = wait(k.source);
  if (src !== null) throw lockedError(Math.max(1, src), 'login_throttled');
  // The account-wide back-off slows only addresses that have failed; the owner's clean one passes.
  const acct = wait(k.account);
  if (acct !== null && (row(k.source)?.failures ?? 0) > 0) throw lockedError(Math.max(1, acct));
}

/** Count one failure under all three keys; returns the 429 to throw when it starts a lock for this address, else null. */
export async function recordLoginFailure(
  db: Queryable,
  source: string,
  username: string,
  rules: ThrottleRules = DEFAULT_THROTTLE,
): Promise<AppError | null> {
  const k = keys(source, username);
  const counted = await loginFailuresRepo.count(db, [k.pair, k.source, k.account], FAILURE_WINDOW_S);
  const n = (key: string) => counted.find((x) => x.key === key)?.failures ?? 0;
  const locks: Array<[string, number]> = [];
  if (n(k.pair) >= rules.free) locks.push([k.pair, lockFor(n(k.pair), rules.free, rules.maxLockS)]);
  if (n(k.source) >= rules.sourceFree) locks.push([k.source, lockFor(n(k.source), rules.sourceFree, rules.maxLockS)]);
  if (n(k.account) >= rules.accountFree) locks.push([k.account, lockFor(n(k.account), rules.accountFree, rules.maxLockS)]);
  for (const [key, s] of locks) await loginFailuresRepo.lock(db, key, s);
  const pair = locks.find(([key]) => key === k.pair);
  if (pair) return lockedError(pair[1]);
  const src = locks.find(([key]) => key === k.source);
  return src ? lockedError(src[1], 'login_throttled') : null;
}

/** A right password: this address's record for the name and the name's own count start again. */
export async function clearLoginFailures(db: Queryable, source: string, username: string): Promise<void> {
  const k = keys(source, username);
  await loginFailuresRepo.clear(db, [k.pair, k.account]);
}

/**
 * Failed sign-ups per address: a taken name answers differently from a free one (as it must, so
 * people can choose another), which makes sign-up a way to learn which usernames exist. Past
 * `free` failures in the window the address may not sign up at all for a while, with the login
 * back-off, so it learns names no faster than failed logins would let it.
 */
const signupKey = (source: string) => `su:${source}`;

/** 429 `signup_throttled` while `source` is locked out of sign-up. */
export async function checkSignupLock(db: Queryable, source: string): Promise<void> {
  const [row] = await loginFailuresRepo.state(db, [signupKey(source)], FAILURE_WINDOW_S);
  const wait = row?.s ?? null;
  if (wait !== null) throw lockedError(Math.max(1, wait), 'signup_throttled');
}

/** Count one failed sign-up from `source`; returns the 429 to throw when it starts a lock, else null. */
export async function recordSignupFailure(db: Queryable, source: string, free: number, maxLockS: number): Promise<AppError | null> {
  const key = signupKey(source);
  const [counted] = await loginFailuresRepo.count(db, [key], FAILURE_WINDOW_S);
  const n = counted?.failures ?? 0;
  if (n < free) return null;
  const s = lockFor(n, free, maxLockS);
  await loginFailuresRepo.lock(db, key, s);
  return lockedError(s, 'signup_throttled');
}

let running = 0;
const waiting: Array<() => void> = [];
const perClient = new Map<string, number>();

/** Run `fn` (a password hash or verify) in one of the bounded slots, as client `client`. */
export async function withHashSlot<T>(client: string, fn: () => Promise<T>): Promise<T> {
  const held = perClient.get(client) ?? 0;
  if (held >= HASH_PER_CLIENT) throw new AppError(429, 'rate_limited', { retry_after: 1 }, { 'Retry-After': '1' });
  perClient.set(client, held + 1);
  try {
    if (running >= HASH_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await fn();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  } finally {
    const left = (perClient.get(client) ?? 1) - 1;
    if (left <= 0) perClient.delete(client);
    else perClient.set(client, left);
  }
}
