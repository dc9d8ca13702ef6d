/**
 * Statements on `accounts`, the bearer `tokens` (only a token's SHA-256 is stored) and the DID
 * sign-in challenges. Every account read carries whether it is an administrator now, from
 * admin_grants (never from the username).
 */
import type { Queryable } from '../ports/database.port.js';
import { IS_ADMIN_SQL } from './admin-grants.repo.js';

export interface AccountRow {
  id: string;
  username: string;
  password_hash: string | null;
  did: string | null;
  created_at: Date | string;
  is_admin?: boolean;
}

const ACCOUNT = `select a.*, ${IS_ADMIN_SQL('a')} as is_admin from accounts a`;

export const accountsRepo = {
  async byId(db: Queryable, id: string): Promise<AccountRow | null> {
    return (await db.query<AccountRow>(`${ACCOUNT} where a.id = $1`, [id])).rows[0] ?? null;
  },

  async byUsername(db: Queryable, username: string): Promise<AccountRow | null> {
    return (await db.query<AccountRow>(`${ACCOUNT} where a.username = $1`, [username])).rows[0] ?? null;
  },

  async byDid(db: Queryable, did: string): Promise<AccountRow | null> {
    return (await db.query<AccountRow>(`${ACCOUNT} where a.did = $1`, [did])).rows[0] ?? null;
  },

  /** Creates a password account; false when the username is taken (nothing written). */
  async insertWithPassword(db: Queryable, a: { id: string; username: string; password_hash: string }): Promise<boolean> {
    const r = await db.query(`insert into accounts (id, username, password_hash) values ($1, $2, $3) on conflict (username) do nothing`, [
      a.id,
      a.username,
      a.password_hash,
    ]);
    return r.affectedRows !== 0;
  },

  /** Creates a DID account; nothing is written on any conflict (a taken username, or the key's own row). */
  async insertWithDid(db: Queryable, a: { id: string; username: string; did: string }): Promise<void> {
    await db.query('insert into accounts (id, username, did) values ($1, $2, $3) on conflict do nothing', [a.id, a.username, a.did]);
  },
};

export const tokensRepo = {
  /** Stores a token by its hash, valid for `ttlS` seconds from now. */
  async insert(db: Queryable, t: { hash: string; account_id: string; via: string; ttlS: number }): Promise<void> {
    await db.query(`insert into tokens (hash, account_id, via, expires_at) values ($1, $2, $3, now() + ($4 || ' seconds')::interval)`, [
      t.hash,
      t.account_id,
      t.via,
      String(t.ttlS),
    ]);
  },

  /** The account of a live token (not revoked, not expired), with whether it is an administrator now. */
  async accountOf(db: Queryable, hash: string): Promise<{ id: string; username: string; is_admin: boolean } | null> {
    const r = await db.query<{ id: string; username: string; is_admin: boolean }>(
      `select a.id, a.username, ${IS_ADMIN_SQL('a')} as is_admin from tokens t join accounts a on a.id = t.account_id
        where t.hash = $1 and t.revoked_at is null and t.expires_at > now()`,
      [hash],
    );
    return r.rows[0] ?? null;
  },

  async revoke(db: Queryable, hash: string): Promise<void> {
    await db.query('update tokens set revoked_at = now() where hash = $1', [hash]);
  },

  /** Revokes every live token of an account; returns how many. */
  async revokeAll(db: Queryable, accountId: string): Promise<number> {
    const r = await db.query('update tokens set revoked_at = now() where account_id = $1 and revoked_at is null', [accountId]);
    return r.affectedRows;
  },
};

export const didChallengesRepo = {
  /** Deletes challenges dead for a day (keeps the table from growing forever). */
  async sweep(db: Queryable): Promise<void> {
    await db.query(`delete from did_challenges where expires_at < now() - interval '1 day'`);
  },

  /** Stores a challenge valid for `ttlS` seconds; returns when it expires. */
  async create(db: Queryable, c: { nonce: string; ip: string; ttlS: number }): Promise<Date> {
    const r = await db.query<{ expires_at: Date | string }>(
      `insert into did_challenges (nonce, ip, expires_at) values ($1, $2, now() + ($3 || ' seconds')::interval) returning expires_at`,
      [c.nonce, c.ip, String(c.ttlS)],
    );
    return new Date(r.rows[0]!.expires_at);
  },

  /** Uses a live, unused challenge up; false when there was none (used, expired or unknown). */
  async consume(db: Queryable, nonce: string): Promise<boolean> {
    const r = await db.query(
      `update did_challenges set used_at = now() where nonce = $1 and used_at is null and expires_at > now() returning nonce`,
      [nonce],
    );
    return r.affectedRows !== 0;
  },
};
