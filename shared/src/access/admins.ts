/**
 * Who is an administrator. Only an operator makes one (`npm run admin`, or an ADMIN_USERS entry
 * that pins an account id), and only of an account that already exists: signing up under some
 * name never grants anything, now or after a restart, so nobody can race an operator to a name.
 * Admin rights are read from `admin_grants` on every request, so grant and revoke act at once.
 */
import type { Queryable } from '../ports/database.port.js';
import type { Logger } from '../logger.js';
import { isUuid } from '../domain/ids.js';

export interface AdminRow {
  username: string;
  account_id: string;
  granted_by: string;
  granted_at: string;
}

/** SQL condition true when `accounts` row `alias` is an administrator now. */
export const IS_ADMIN_SQL = (alias: string) =>
  `exists (select 1 from admin_grants g where g.account_id = ${alias}.id and g.revoked_at is null)`;

export type GrantResult = 'granted' | 'already_admin' | 'no_such_account';
export type RevokeResult = 'revoked' | 'not_admin' | 'no_such_account';

async function accountId(db: Queryable, username: string): Promise<string | null> {
  const r = await db.query<{ id: string }>('select id from accounts where username = $1', [username]);
  return r.rows[0]?.id ?? null;
}

const audit = (db: Queryable, owner: string, action: string, by: string) =>
  db.query('insert into activity_events (owner_id, action, detail) values ($1, $2, $3)', [owner, action, { by }]);

/** Make the existing account `username` an administrator, recording `by` and the time. */
export async function grantAdmin(db: Queryable, username: string, by: string): Promise<GrantResult> {
  const id = await accountId(db, username);
  if (!id) return 'no_such_account';
  // A revoked row is granted again (new grantor and time); an active grant is left as it was.
  const r = await db.query(
    `insert into admin_grants (account_id, granted_by) values ($1, $2)
     on conflict (account_id) do update set granted_by = excluded.granted_by, granted_at = now(), revoked_by = null, revoked_at = null
       where admin_grants.revoked_at is not null`,
    [id, by],
  );
  if (r.affectedRows === 0) return 'already_admin';
  await audit(db, id, 'admin.granted', by);
  return 'granted';
}

/** Take administrator rights from `username`; the row stays, with who revoked them and when. */
export async function revokeAdmin(db: Queryable, username: string, by: string): Promise<RevokeResult> {
  const id = await accountId(db, username);
  if (!id) return 'no_such_account';
  const r = await db.query('update admin_grants set revoked_by = $2, revoked_at = now() where account_id = $1 and revoked_at is null', [
    id,
    by,
  ]);
  if (r.affectedRows === 0) return 'not_admin';
  await audit(db, id, 'admin.revoked', by);
  return 'revoked';
}

export async function listAdmins(db: Queryable): Promise<AdminRow[]> {
  const r = await db.query<{ username: string; account_id: string; granted_by: string; granted_at: Date | string }>(
    `select a.username, a.id as account_id, g.granted_by, g.granted_at from admin_grants g join accounts a on a.id = g.account_id
      where g.revoked_at is null order by a.username`,
  );
  return r.rows.map((x) => ({ ...x, granted_at: new Date(x.granted_at).toISOString() }));
}

/** One ADMIN_USERS entry: `<account id>` or `<username>:<account id>`; a bare name pins nothing. */
export function parseAdminEntry(entry: string): { id: string; username?: string } | null {
  const at = entry.lastIndexOf(':');
  const id = (at < 0 ? entry : entry.slice(at + 1)).trim();
  if (!isUuid(id)) return null;
  const username = at < 0 ? undefined : entry.slice(0, at).trim() || undefined;
  return { id: id.toLowerCase(), ...(username ? { username } : {}) };
}

/**
 * The ADMIN_USERS pass, run at API start. An entry must pin the account id (`npm run admin -- list`
 * and `GET /api/me` show it): a name alone would grant whoever signed up under it by the next
 * restart, so bare names grant nothing and are warned about. A pinned id is granted only when that
 * account exists (and, when the entry names a username too, still carries it); an account an
 * operator revoked stays revoked.
 */
export async function applyConfiguredAdmins(db: Queryable, entries: readonly string[], log: Logger): Promise<void> {
  for (const entry of entries) {
    const pin = parseAdminEntry(entry);
    if (!pin) {
      log.warn(
        { entry },
        'ADMIN_USERS entry pins no account id; nothing granted (use `npm run admin -- grant <username>`, or write `<username>:<account id>`)',
      );
      continue;
    }
    const row = (
      await db.query<{ username: string; revoked_by: string | null; granted: boolean }>(
        `select a.username, g.revoked_by, g.account_id is not null as granted
         from accounts a left join admin_grants g on g.account_id = a.id where a.id = $1`,
        [pin.id],
      )
    ).rows[0];
    if (!row || (pin.username !== undefined && pin.username !== row.username)) {
      log.warn({ entry }, 'ADMIN_USERS entry pins an account id that does not exist (or no longer has that username); nothing granted');
      continue;
    }
    // An operator's revoke wins over the setting: a revoked account is not granted again here.
    if (row.granted && row.revoked_by) {
      log.warn(
        { username: row.username, revoked_by: row.revoked_by },
        'ADMIN_USERS names an account whose admin rights were revoked; not granted again (use `npm run admin -- grant` to restore them)',
      );
      continue;
    }
    const r = await grantAdmin(db, row.username, 'ADMIN_USERS');
    log.info({ username: row.username, account_id: pin.id, result: r }, 'ADMIN_USERS: pinned account marked administrator');
  }
}
