/**
 * Statements on `login_failures`: failed sign-ins and sign-ups counted per key (an address, a
 * username, or the pair) within a window, and the lock a key is under. How many failures lock for
 * how long is login-throttle's rule; these only count, lock, read and clear.
 */
import type { Queryable } from '../ports/database.port.js';

export const loginFailuresRepo = {
  /**
   * Each of `keys` with failures inside the window: its count and, while it is locked, the whole
   * seconds left (null when not locked).
   */
  async state(db: Queryable, keys: readonly string[], windowS: number): Promise<{ key: string; failures: number; s: number | null }[]> {
    const r = await db.query<{ key: string; failures: number; s: number | null }>(
      `select key, failures, case when locked_until > now() then ceil(extract(epoch from (locked_until - now())))::int end as s
         from login_failures where key = any($1) and updated_at > now() - ($2 || ' seconds')::interval`,
      [[...keys], String(windowS)],
    );
    return r.rows;
  },

  /** Counts one failure on each key (a count older than the window starts again at 1); returns the counts. */
  async count(db: Queryable, keys: readonly string[], windowS: number): Promise<{ key: string; failures: number }[]> {
    const r = await db.query<{ key: string; failures: number }>(
      `insert into login_failures (key, failures, updated_at) select unnest($1::text[]), 1, now()
       on conflict (key) do update set updated_at = now(),
         failures = case when login_failures.updated_at < now() - ($2 || ' seconds')::interval then 1 else login_failures.failures + 1 end
       returning key, failures`,
      [[...keys], String(windowS)],
    );
    return r.rows;
  },

  /** Locks a key for `seconds` from now. */
  async lock(db: Queryable, key: string, seconds: number): Promise<void> {
    await db.query(`update login_failures set locked_until = now() + ($2 || ' seconds')::interval where key = $1`, [key, String(seconds)]);
  },

  /** Forgets these keys' failures and locks. */
  async clear(db: Queryable, keys: readonly string[]): Promise<void> {
    await db.query('delete from login_failures where key = any($1)', [[...keys]]);
  },
};
