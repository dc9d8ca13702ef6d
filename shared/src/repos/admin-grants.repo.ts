/**
 * Statements on `admin_grants` (who is an administrator, who granted or revoked it, when). Who may
 * become one is access/admins.ts's rule; these only read and write the rows.
 */
import type { Queryable } from '../ports/database.port.js';

/** SQL condition true when `accounts` row `alias` is an administrator now (for reads that join accounts). */
export const IS_ADMIN_SQL = (alias: string) =>
  `exists (select 1 from admin_grants g where g.account_id = ${alias}.id and g.revoked_at is null)`;

export interface ActiveAdminRow {
  username: string;
  account_id: string;
  granted_by: string;
  granted_at: Date | string;
}

/** An account and its grant, if it ever had one. */
export interface AccountGrant {
  username: string;
  /** Who revoked the grant (null: never granted, or granted and not revoked). */
  revoked_by: string | null;
  granted: boolean;
}

export const adminGrantsRepo = {
  /** The id of the account with this username, if any. */
  async accountIdOf(db: Queryable, username: string): Promise<string | null> {
    const r = await db.query<{ id: string }>('select id from accounts where username = $1', [username]);
    return r.rows[0]?.id ?? null;
  },

  /** An account by id, with its grant's state; null when there is no such account. */
  async accountGrant(db: Queryable, accountId: string): Promise<AccountGrant | null> {
    const r = await db.query<AccountGrant>(
      `select a.username, g.revoked_by, g.account_id is not null as granted
       from accounts a left join admin_grants g on g.account_id = a.id where a.id = $1`,
      [accountId],
    );
    return r.rows[0] ?? null;
  },

  /**
   * Grants administrator rights; a revoked row is granted again (new grantor and time), an active
   * grant is left as it was. True when a grant was written.
   */
  async grant(db: Queryable, accountId: string, by: string): Promise<boolean> {
    const r = await db.query(
      `insert into admin_grants (account_id, granted_by) values ($1, $2)
       on conflict (account_id) do update set granted_by = excluded.granted_by, granted_at = now(), revoked_by = null, revoked_at = null
         where admin_grants.revoked_at is not null`,
      [accountId, by],
    );
    return r.affectedRows !== 0;
  },

  /** Revokes an active grant, keeping the row with who revoked it and when. True when one was revoked. */
  async revoke(db: Queryable, accountId: string, by: string): Promise<boolean> {
    const r = await db.query('update admin_grants set revoked_by = $2, revoked_at = now() where account_id = $1 and revoked_at is null', [
      accountId,
      by,
    ]);
    return r.affectedRows !== 0;
  },

  /** Every administrator now, by username. */
  async active(db: Queryable): Promise<ActiveAdminRow[]> {
    const r = await db.query<ActiveAdminRow>(
      `select a.username, a.id as account_id, g.granted_by, g.granted_at from admin_grants g join accounts a on a.id = g.account_id
        where g.revoked_at is null order by a.username`,
    );
    return r.rows;
  },
};
