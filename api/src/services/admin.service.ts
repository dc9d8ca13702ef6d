import type { Container } from '../../../shared/src/container.js';

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

interface ActivityRow {
  owner_id: string;
  username: string | null;
  total: number;
  first_seen: Date | string;
  last_seen: Date | string;
  action: string;
  n: number;
}

const iso = (d: Date | string) => new Date(d).toISOString();

// Owners are paged first (most recently active first), then their per-action counts are joined in,
// so one page never splits a user's actions across two pages.
const ACTIVITY_SQL = `
  with owners as (
    select owner_id, count(*)::int as total, min(created_at) as first_seen, max(created_at) as last_seen
      from activity_events where owner_id is not null
     group by owner_id
     order by max(created_at) desc, owner_id
     limit $1 offset $2
  )
  select o.owner_id, a.username, o.total, o.first_seen, o.last_seen, e.action, count(*)::int as n
    from owners o
    join activity_events e on e.owner_id = o.owner_id
    left join accounts a on a.id = o.owner_id
   group by o.owner_id, a.username, o.total, o.first_seen, o.last_seen, e.action
   order by o.last_seen desc, o.owner_id, e.action`;

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

/** Read-only reports for administrators. Route access ('admin') is checked before any of these run. */
export function createAdminService(c: Container) {
  const { db } = c;
  const count = async (sql: string) => (await db.query<{ n: number }>(sql)).rows[0]!.n;

  return {
    /** Newest first. The owner id is reduced to `has_owner`, so the list cannot be joined back to accounts. */
    async feedback({ limit, offset }: Page): Promise<{ total: number; items: FeedbackItem[] }> {
      const { rows } = await db.query<{ id: string; note: string; created_at: Date | string; has_owner: boolean }>(
        `select id, note, created_at, owner_id is not null as has_owner from feedback
          order by created_at desc, id desc limit $1 offset $2`,
        [limit, offset],
      );
      const items = rows.map((r) => ({ id: r.id, note: r.note, created_at: iso(r.created_at), has_owner: r.has_owner }));
      return { total: await count('select count(*)::int as n from feedback'), items };
    },

    /** Per-user summary; events with no owner cannot be attributed, so they are only counted. */
    async activity({ limit, offset }: Page): Promise<{ total_users: number; skipped: number; users: UserActivity[] }> {
      const { rows } = await db.query<ActivityRow>(ACTIVITY_SQL, [limit, offset]);
      const [totalUsers, skipped] = await Promise.all([
        count('select count(distinct owner_id)::int as n from activity_events'),
        count('select count(*)::int as n from activity_events where owner_id is null'),
      ]);
      return { total_users: totalUsers, skipped, users: foldActivity(rows) };
    },

    /** The raw log, newest first, internals included: admin eyes only. */
    async events({ limit, offset }: Page): Promise<{ total: number; items: EventItem[] }> {
      const { rows } = await db.query<EventItem & { created_at: Date | string }>(
        `select id, owner_id, action, detail, created_at from activity_events
          order by created_at desc, id desc limit $1 offset $2`,
        [limit, offset],
      );
      const items = rows.map((r) => ({ ...r, id: Number(r.id), created_at: iso(r.created_at) }));
      return { total: await count('select count(*)::int as n from activity_events'), items };
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
