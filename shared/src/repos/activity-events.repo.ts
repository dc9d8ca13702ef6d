/**
 * Statements on `activity_events`: the audit and engagement log admins read (who did what,
 * when). A row's `detail` is a small JSON object; callers keep free text and secrets out of it.
 */
import type { Queryable } from '../ports/database.port.js';

export const activityEventsRepo = {
  /** Appends one event; `ownerId` null for an act without an account. */
  async record(db: Queryable, ownerId: string | null, action: string, detail: Record<string, unknown> = {}): Promise<void> {
    await db.query('insert into activity_events (owner_id, action, detail) values ($1, $2, $3)', [ownerId, action, detail]);
  },
};

export type ActivityEventsRepo = typeof activityEventsRepo;
