/**
 * The administrators' read-only reports: farmers' feedback, the activity log per account and the
 * raw log. Route access ('admin') is checked before any of these run.
 */
import type { Queryable } from '../ports/database.port.js';

/** One (owner, action) row of a page of owners, with the owner's totals. */
export interface ActivityRow {
  owner_id: string;
  username: string | null;
  total: number;
  first_seen: Date | string;
  last_seen: Date | string;
  action: string;
  n: number;
}

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

const count = async (db: Queryable, sql: string): Promise<number> => (await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0;

export const adminReportsRepo = {
  /** A page of feedback, newest first; the owner reduced to whether there was one. */
  async feedbackPage(db: Queryable, limit: number, offset: number) {
    const r = await db.query<{ id: string; note: string; created_at: Date | string; has_owner: boolean }>(
      `select id, note, created_at, owner_id is not null as has_owner from feedback
        order by created_at desc, id desc limit $1 offset $2`,
      [limit, offset],
    );
    return r.rows;
  },

  feedbackCount: (db: Queryable) => count(db, 'select count(*)::int as n from feedback'),

  /** A page of accounts by latest activity, one row per (account, action) (ACTIVITY_SQL). */
  async activityPage(db: Queryable, limit: number, offset: number): Promise<ActivityRow[]> {
    const r = await db.query<ActivityRow>(ACTIVITY_SQL, [limit, offset]);
    return r.rows;
  },

  /** How many accounts have activity. */
  activityOwners: (db: Queryable) => count(db, 'select count(distinct owner_id)::int as n from activity_events'),

  /** How many events belong to no account (they can be counted, not attributed). */
  unattributedEvents: (db: Queryable) => count(db, 'select count(*)::int as n from activity_events where owner_id is null'),

  /** A page of the raw log, newest first. */
  async eventsPage(db: Queryable, limit: number, offset: number) {
    const r = await db.query<{
      id: number | string;
      owner_id: string | null;
      action: string;
      detail: Record<string, unknown>;
      created_at: Date | string;
    }>(
      `select id, owner_id, action, detail, created_at from activity_events
        order by created_at desc, id desc limit $1 offset $2`,
      [limit, offset],
    );
    return r.rows;
  },

  eventsCount: (db: Queryable) => count(db, 'select count(*)::int as n from activity_events'),
};
