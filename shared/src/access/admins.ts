/**
 * Who is an administrator. Only an operator makes one (`npm run admin`, or the ADMIN_USERS
 * compatibility pass at startup), and only of an account that already exists: signing up under
 * some name never grants anything, so nobody can race an operator to an admin username.
 * Admin rights are read from `admin_grants` on every request, so grant and revoke act at once.
 */
import type { Queryable } from '../ports/database.port.js';
import type { Logger } from '../logger.js';

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
  const r = await db.query(
    'update admin_grants set revoked_by = $2, revoked_at = now() where account_id = $1 and revoked_at is null',
    [id, by],
  );
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

/**
 * The ADMIN_USERS compatibility pass, run once at API start: names whose accounts already exist
 * are granted (logged); names with no account are only warned about, and gain nothing when someone
 * signs up under them later; an account an operator revoked stays revoked.
 */
export async function applyConfiguredAdmins(db: Queryable, names: readonly string[], log: Logger): Promise<void> {
  if (names.length === 0) return;
  log.warn('ADMIN_USERS is kept for compatibility only: it marks accounts that exist now; use `npm run admin -- grant <username>` instead');
  for (const name of names) {
    // An operator's revoke wins over the old setting: a revoked account is not granted again here.
    const revoked = await db.query<{ revoked_by: string }>(
      'select g.revoked_by from admin_grants g join accounts a on a.id = g.account_id where a.username = $1 and g.revoked_at is not null',
      [name],
    );
    if (revoked.rows[0]) {
      log.warn({ username: name, revoked_by: revoked.rows[0].revoked_by }, 'ADMIN_USERS names an account whose admin rights were revoked; not granted again (use `npm run admin -- grant` to restore them)');
      continue;
    }
    const r = await grantAdmin(db, name, 'ADMIN_USERS');
    if (r === 'no_such_account') log.warn({ username: name }, 'ADMIN_USERS names an account that does not exist; nothing granted, and signing up under this name grants nothing');
    else log.info({ username: name, result: r }, 'ADMIN_USERS: existing account marked administrator');
  }
}
