import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { ActivityRow, adminReportsRepo } from '../../../shared/src/repos/admin-reports.repo.js';

export interface Page {
  limit: number;
  offset: number;
}

export interface FeedbackItem {
  id: string;
  note: string;
  created_at: string;
  has_owner: boolean;
}

export interface UserActivity {
  account_id: string;
  /** Null when the account has since been deleted. */
  username: string | null;
  events: number;
  actions: Record<string, number>;
  first_seen: string;
  last_seen: string;
}

export interface EventItem {
  id: number;
  owner_id: string | null;
  action: string;
  detail: Record<string, unknown>;
  created_at: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** Fold one row per (owner, action) into one summary per owner, keeping the SQL order. */
function foldActivity(rows: ActivityRow[]): UserActivity[] {
  const byOwner = new Map<string, UserActivity>();
  for (const r of rows) {
    let u = byOwner.get(r.owner_id);
    if (!u) {
      u = {
        account_id: r.owner_id,
        username: r.username,
        events: r.total,
        actions: {},
        first_seen: iso(r.first_seen),
        last_seen: iso(r.last_seen),
      };
      byOwner.set(r.owner_id, u);
    }
    u.actions[r.action] = r.n;
  }
  return [...byOwner.values()];
}

/** The ports the admin reports read through. */
export interface AdminDeps {
  db: Queryable;
  reports: typeof adminReportsRepo;
}

/** Read-only reports for administrators. Route access ('admin') is checked before any of these run. */
export function createAdminService({ db, reports }: AdminDeps) {
  return {
    /** Newest first. The owner id is reduced to `has_owner`, so the list cannot be joined back to accounts. */
    async feedback({ limit, offset }: Page): Promise<{ total: number; items: FeedbackItem[] }> {
      const rows = await reports.feedbackPage(db, limit, offset);
      const items = rows.map((r) => ({ id: r.id, note: r.note, created_at: iso(r.created_at), has_owner: r.has_owner }));
      return { total: await reports.feedbackCount(db), items };
    },

    /** Per-user summary; events with no owner cannot be attributed, so they are only counted. */
    async activity({ limit, offset }: Page): Promise<{ total_users: number; skipped: number; users: UserActivity[] }> {
      const rows = await reports.activityPage(db, limit, offset);
      const [totalUsers, skipped] = await Promise.all([reports.activityOwners(db), reports.unattributedEvents(db)]);
      return { total_users: totalUsers, skipped, users: foldActivity(rows) };
    },

    /** The raw log, newest first, internals included: admin eyes only. */
    async events({ limit, offset }: Page): Promise<{ total: number; items: EventItem[] }> {
      const rows = await reports.eventsPage(db, limit, offset);
      const items = rows.map((r) => ({ ...r, id: Number(r.id), created_at: iso(r.created_at) }));
      return { total: await reports.eventsCount(db), items };
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
