/**
 * Who is an administrator. Only an operator makes one (`npm run admin`, or an ADMIN_USERS entry
 * that pins an account id), and only of an account that already exists: signing up under some
 * name never grants anything, now or after a restart, so nobody can race an operator to a name.
 * Admin rights are read from `admin_grants` on every request, so grant and revoke act at once.
 */
import type { Queryable } from '../ports/database.port.js';
import type { Logger } from '../logger.js';
import { isUuid } from '../domain/ids.js';
import { activityEventsRepo } from '../repos/activity-events.repo.js';
import { adminGrantsRepo } from '../repos/admin-grants.repo.js';

export interface AdminRow {
  username: string;
  account_id: string;
  granted_by: string;
  granted_at: string;
}

export type GrantResult = 'granted' | 'already_admin' | 'no_such_account';
export type RevokeResult = 'revoked' | 'not_admin' | 'no_such_account';

const accountId = adminGrantsRepo.accountIdOf;
const audit = (db: Queryable, owner: string, action: string, by: string) => activityEventsRepo.record(db, owner, action, { by });

/** Make the existing account `username` an administrator, recording `by` and the time. */
export async function grantAdmin(db: Queryable, username: string, by: string): Promise<GrantResult> {
  const id = await accountId(db, username);
  if (!id) return 'no_such_account';
  // A revoked row is granted again (new grantor and time); an active grant is left as it was.
  if (!(await adminGrantsRepo.grant(db, id, by))) return 'already_admin';
  await audit(db, id, 'admin.granted', by);
  return 'granted';
}

/** Take administrator rights from `username`; the row stays, with who revoked them and when. */
export async function revokeAdmin(db: Queryable, username: string, by: string): Promise<RevokeResult> {
  const id = await accountId(db, username);
  if (!id) return 'no_such_account';
  if (!(await adminGrantsRepo.revoke(db, id, by))) return 'not_admin';
  await audit(db, id, 'admin.revoked', by);
  return 'revoked';
}

export async function listAdmins(db: Queryable): Promise<AdminRow[]> {
  const rows = await adminGrantsRepo.active(db);
  return rows.map((x) => ({ ...x, granted_at: new Date(x.granted_at).toISOString() }));
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
    const row = await adminGrantsRepo.accountGrant(db, pin.id);
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
