/** Statements on `feedback`: farmers' notes, one row each (the admin pages read them). */
import type { Queryable } from '../ports/database.port.js';

export const feedbackRepo = {
  /** Stores one note (an anonymous one has no owner) and answers when the database stored it. */
  async insert(db: Queryable, note: { id: string; ownerId: string | null; note: string }): Promise<Date> {
    const r = await db.query<{ created_at: Date | string }>(
      'insert into feedback (id, owner_id, note) values ($1, $2, $3) returning created_at',
      [note.id, note.ownerId, note.note],
    );
    return new Date(r.rows[0]!.created_at);
  },
};

export type FeedbackRepo = typeof feedbackRepo;
