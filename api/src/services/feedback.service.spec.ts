import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createFeedbackService, FEEDBACK_ACTION, type FeedbackDeps } from './feedback.service.js';

/** A transaction that runs its function on `tx` (its rollback is the database's, tested in the repository spec). */
function inTransaction(tx: Queryable) {
  return strictMock<FeedbackDeps['db']>({ transaction: vi.fn(async (fn: (t: Queryable) => Promise<unknown>) => fn(tx)) as never });
}

describe('feedback service', () => {
  it('stores the trimmed note and an activity event without its text, both in one transaction', async () => {
    const tx = strictMock<Queryable>({}, 'tx');
    const insert = vi.fn(async () => new Date('2026-11-28T10:00:00Z'));
    const record = vi.fn(async () => {});
    const s = createFeedbackService({ db: inTransaction(tx), feedback: strictMock({ insert }), activity: strictMock({ record }) });
    const answer = await s.submit('owner-1', '  lá bị vàng  ');
    expect(answer).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), created_at: '2026-11-28T10:00:00.000Z' });
    expect(insert).toHaveBeenCalledWith(tx, { id: answer.id, ownerId: 'owner-1', note: 'lá bị vàng' });
    expect(record).toHaveBeenCalledWith(tx, 'owner-1', FEEDBACK_ACTION, { chars: 'lá bị vàng'.length });
    expect(JSON.stringify(record.mock.calls)).not.toContain('vàng');
    expect(JSON.stringify(record.mock.calls)).not.toContain(answer.id);
  });

  it('accepts a note without an account', async () => {
    const insert = vi.fn(async () => new Date());
    const record = vi.fn(async () => {});
    const s = createFeedbackService({
      db: inTransaction(strictMock<Queryable>()),
      feedback: strictMock({ insert }),
      activity: strictMock({ record }),
    });
    await s.submit(null, 'hello');
    expect(insert).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ ownerId: null }));
    expect(record).toHaveBeenCalledWith(expect.anything(), null, FEEDBACK_ACTION, { chars: 5 });
  });

  it('refuses an empty or blank note with 422 feedback_empty naming `note`, writing nothing', async () => {
    const s = createFeedbackService({
      db: strictMock<FeedbackDeps['db']>({}, 'db'),
      feedback: strictMock<FeedbackDeps['feedback']>({}, 'feedback'),
      activity: strictMock<FeedbackDeps['activity']>({}, 'activity'),
    });
    for (const note of ['', '   ', '\n\t '])
      await expect(s.submit('owner-1', note)).rejects.toMatchObject({ status: 422, code: 'feedback_empty', params: { field: 'note' } });
  });

  it('fails as a whole when the activity event cannot be written (the transaction rolls the note back)', async () => {
    const s = createFeedbackService({
      db: inTransaction(strictMock<Queryable>()),
      feedback: strictMock<FeedbackDeps['feedback']>({ insert: async () => new Date() }),
      activity: strictMock<FeedbackDeps['activity']>({ record: async () => Promise.reject(new Error('disk full')) }),
    });
    await expect(s.submit('owner-1', 'note')).rejects.toThrow('disk full');
  });
});
