import { randomUUID } from 'node:crypto';
import { AppError } from '../../../shared/src/domain/errors.js';
import type { Database } from '../../../shared/src/ports/database.port.js';
import type { ActivityEventsRepo } from '../../../shared/src/repos/activity-events.repo.js';
import type { FeedbackRepo } from '../../../shared/src/repos/feedback.repo.js';

export const FEEDBACK_ACTION = 'feedback.sent';

/** What the feedback service uses: a transaction, the notes, and the activity log. */
export interface FeedbackDeps {
  db: Pick<Database, 'transaction'>;
  feedback: Pick<FeedbackRepo, 'insert'>;
  activity: Pick<ActivityEventsRepo, 'record'>;
}

/** Farmer feedback: one row per note, plus one activity event so admins see who is engaged. */
export function createFeedbackService(d: FeedbackDeps) {
  return {
    async submit(ownerId: string | null, rawNote: string): Promise<{ id: string; created_at: string }> {
      const note = rawNote.trim();
      // 422 naming `note`, like any other unusable field, but with a sentence a farmer understands.
      if (!note) throw new AppError(422, 'feedback_empty', { field: 'note' });
      const id = randomUUID();
      // One transaction: a stored note always has its activity event, and the other way round.
      const createdAt = await d.db.transaction(async (tx) => {
        const at = await d.feedback.insert(tx, { id, ownerId, note });
        // The event carries no text and no feedback id: the note stays out of the activity log.
        await d.activity.record(tx, ownerId, FEEDBACK_ACTION, { chars: note.length });
        return at;
      });
      return { id, created_at: createdAt.toISOString() };
    },
  };
}

export type FeedbackService = ReturnType<typeof createFeedbackService>;
