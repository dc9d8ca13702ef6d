import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { activityEventsRepo } from './activity-events.repo.js';
import { feedbackRepo } from './feedback.repo.js';

describe.each(BOTH_DATABASES)('feedback and activity events on $name', ({ open }) => {
  const opened = openDatabase(open);

  it('stores a note with or without an owner and answers when it was stored', async () => {
    const { db } = opened;
    const owner = randomUUID();
    const [a, b] = [randomUUID(), randomUUID()];
    const before = Date.now() - 60_000;
    const at = await feedbackRepo.insert(db, { id: a, ownerId: owner, note: 'lá bị vàng' });
    await feedbackRepo.insert(db, { id: b, ownerId: null, note: 'anonymous' });
    expect(at).toBeInstanceOf(Date);
    expect(at.getTime()).toBeGreaterThan(before);
    const r = await db.query<{ id: string; owner_id: string | null; note: string }>(
      'select id, owner_id, note from feedback order by note',
    );
    expect(r.rows).toEqual([
      { id: b, owner_id: null, note: 'anonymous' },
      { id: a, owner_id: owner, note: 'lá bị vàng' },
    ]);
  });

  it('appends activity events with their detail, an empty one by default', async () => {
    const { db } = opened;
    const owner = randomUUID();
    await activityEventsRepo.record(db, owner, 'feedback.sent', { chars: 9 });
    await activityEventsRepo.record(db, null, 'anonymous.act');
    const r = await db.query<{ owner_id: string | null; action: string; detail: unknown }>(
      'select owner_id, action, detail from activity_events order by id',
    );
    expect(r.rows).toEqual([
      { owner_id: owner, action: 'feedback.sent', detail: { chars: 9 } },
      { owner_id: null, action: 'anonymous.act', detail: {} },
    ]);
  });

  it('writes both in one transaction or neither', async () => {
    const { db } = opened;
    const id = randomUUID();
    await expect(
      db.transaction(async (tx) => {
        await feedbackRepo.insert(tx, { id, ownerId: null, note: 'rolled back' });
        await activityEventsRepo.record(tx, null, 'feedback.sent', { chars: 11 });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await db.query('select 1 from feedback where id = $1', [id])).rows).toEqual([]);
    expect((await db.query(`select 1 from activity_events where detail = '{"chars": 11}'::jsonb`)).rows).toEqual([]);
  });
});
