/**
 * Sign-in abuse controls. Two separate things:
 * - a per-username failure throttle kept in the database (so every API process shares it): after
 *   {@link FREE_FAILURES} wrong passwords in a row, sign-in is locked with exponential back-off,
 *   answered 429 with Retry-After, even for the right password;
 * - a bound on concurrent scrypt work ({@link withHashSlot}): scrypt takes 32 MiB and ~100 ms of
 *   a libuv thread, so a flood of logins from one address could starve everyone. At most
 *   {@link HASH_CONCURRENCY} hashes run at once, and one address may hold at most
 *   {@link HASH_PER_CLIENT} places (running or queued); past that it gets 429 at once.
 */
import { AppError } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';

export const FREE_FAILURES = 5;
const BASE_LOCK_S = 30;
const MAX_LOCK_S = 900;
export const HASH_CONCURRENCY = 2;
export const HASH_PER_CLIENT = 3;

const lockedError = (retryAfterS: number) =>
  new AppError(429, 'login_locked', { retry_after: retryAfterS }, { 'Retry-After': String(retryAfterS) });

/** 429 when sign-in for `username` is locked now. */
export async function checkLoginLock(db: Queryable, username: string): Promise<void> {
  const r = await db.query<{ s: number }>(
    'select ceil(extract(epoch from (locked_until - now())))::int as s from login_throttle where username = $1 and locked_until > now()',
    [username],
  );
  const s = r.rows[0]?.s;
  if (s !== undefined) throw lockedError(Math.max(1, s));
}

/** Count one failure; returns the 429 to throw when this failure starts a lock, else null. */
export async function recordLoginFailure(db: Queryable, username: string): Promise<AppError | null> {
  const r = await db.query<{ failures: number }>(
    `insert into login_throttle (username, failures, updated_at) values ($1, 1, now())
     on conflict (username) do update set failures = login_throttle.failures + 1, updated_at = now()
     returning failures`,
    [username],
  );
  const failures = r.rows[0]!.failures;
  if (failures < FREE_FAILURES) return null;
  const lockS = Math.min(MAX_LOCK_S, BASE_LOCK_S * 2 ** (failures - FREE_FAILURES));
  await db.query(`update login_throttle set locked_until = now() + ($2 || ' seconds')::interval where username = $1`, [username, String(lockS)]);
  return lockedError(lockS);
}

export async function clearLoginFailures(db: Queryable, username: string): Promise<void> {
  await db.query('delete from login_throttle where username = $1', [username]);
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
