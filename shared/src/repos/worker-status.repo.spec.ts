import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { workerStatusRepo } from './worker-status.repo.js';

describe.each(BOTH_DATABASES)('worker status on $name', ({ open }) => {
  let opened: OpenDatabase;

  beforeAll(async () => {
    opened = await open();
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('writes a worker’s row once and refreshes what it loaded on each beat', async () => {
    const { db } = opened;
    await workerStatusRepo.beat(db, 'w-1', ['identify', 'reindex'], { model: { name: 'm', version: '1' }, provider: 'cpu' });
    await db.query(`update worker_status set seen_at = '2000-01-01T00:00:00Z' where worker_id = 'w-1'`);
    await workerStatusRepo.beat(db, 'w-1', ['other'], { model: { name: 'm', version: '2' }, provider: 'cuda' });
    const r = await db.query<{ worker_id: string; queues: string[]; recognition: unknown; seen_at: Date }>(
      'select worker_id, queues, recognition, seen_at from worker_status',
    );
    expect(r.rows.map(({ seen_at: _, ...row }) => row)).toEqual([
      // The queues are the first beat's: a worker serves the queues it started with.
      { worker_id: 'w-1', queues: ['identify', 'reindex'], recognition: { model: { name: 'm', version: '2' }, provider: 'cuda' } },
    ]);
    expect(new Date(r.rows[0]!.seen_at).getFullYear()).toBeGreaterThan(2000);
  });

  it('reads what the most recently seen worker serves, and answers a ping', async () => {
    const { db } = opened;
    await workerStatusRepo.ping(db);
    await workerStatusRepo.beat(db, 'w-2', ['identify'], { model: { name: 'm', version: '3' }, provider: 'cpu' });
    await db.query(`update worker_status set seen_at = '2001-01-01T00:00:00Z' where worker_id = 'w-2'`);
    // w-1 was seen last (the test above), so its answer is the one shown.
    expect(await workerStatusRepo.latestRecognition(db)).toEqual({ model: { name: 'm', version: '2' }, provider: 'cuda' });
    await db.query(`delete from worker_status`);
    expect(await workerStatusRepo.latestRecognition(db)).toBeNull();
  });
});
