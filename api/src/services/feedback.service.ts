import { randomUUID } from 'node:crypto';
import type { Container } from '../../../shared/src/container.js';
import { AppError } from '../../../shared/src/domain/errors.js';

export const FEEDBACK_ACTION = 'feedback.sent';

/** Farmer feedback: one row per note, plus one activity event so admins see who is engaged. */
export function createFeedbackService(c: Container) {
  const { db } = c;
  return {
    async submit(ownerId: string | null, rawNote: string): Promise<{ id: string; created_at: string }> {
      const note = rawNote.trim();
      // 422 naming `note`, like any other unusable field, but with a sentence a farmer understands.
      if (!note) throw new AppError(422, 'feedback_empty', { field: 'note' });
      const id = randomUUID();
      // One transaction: a stored note always has its activity event, and the other way round.
      const createdAt = await db.transaction(async (tx) => {
        const r = await tx.query<{ created_at: Date | string }>(
          'insert into feedback (id, owner_id, note) values ($1, $2, $3) returning created_at',
          [id, ownerId, note],
        );
        // The event carries no text and no feedback id: the note stays out of the activity log.
        await tx.query('insert into activity_events (owner_id, action, detail) values ($1, $2, $3)', [
          ownerId,
          FEEDBACK_ACTION,
          { chars: note.length },
        ]);
        return r.rows[0]!.created_at;
      });
      return { id, created_at: new Date(createdAt).toISOString() };
    },
  };
}

export type FeedbackService = ReturnType<typeof createFeedbackService>;
