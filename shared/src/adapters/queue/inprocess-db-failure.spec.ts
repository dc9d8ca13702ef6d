import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { handlers } from '../../ports/conformance/queue-harness.js';
import type { Database } from '../../ports/database.port.js';
import { migrate } from '../db/migrate.js';
import { createPostgresDatabase } from '../db/postgres.adapter.js';
import { createInProcessQueue } from './inprocess.adapter.js';

/**
 * The embedded queue's own database calls (claiming a job, writing its outcome) run in the
 * background, where no request catches what they throw: a failure there must be reported and
 * survived, never left as an unhandled rejection that ends the process.
 */
describe('in-process queue when its database fails (real PostgreSQL)', () => {
  let db: Database;
  let drop: () => Promise<void>;
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);

  beforeAll(async () => {
    const t = await createTestDatabase();
    drop = t.drop;
    db = await createPostgresDatabase(t.url, 4);
    await migrate(db);
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await db?.close();
    await drop?.();
  });

  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
    expect(ok()).toBe(true);
  };

  it('reports a failed claim and a failed outcome write, keeps polling, and runs jobs again once the database is back', async () => {
    const errors: string[] = [];
    const q = createInProcessQueue(db, {
      concurrency: 1,
      attempts: 3,
      backoffMs: 20,
      pollMs: 20,
      onError: (_e, where) => errors.push(where),
    });
    let ran = 0;
    await q.startWorker(
      handlers(async (d) => {
        ran++;
        // The outcome of this job cannot be written: its table is gone while it runs.
        if (d.model_version === 'v-lost') await db.query('alter table jobs rename to jobs_away');
        return { m: d.model_version };
      }),
    );
    await q.enqueue('reindex', { model_version: 'v-lost' });
    await until(() => errors.includes('record'));
    // With the table away, every poll's claim fails and is reported, not thrown.
    await until(() => errors.filter((w) => w === 'claim').length >= 2);
    await db.query('alter table jobs_away rename to jobs');
    const id = await q.enqueue('reindex', { model_version: 'v-after' });
    const done = await q.waitFor(id, 10_000);
    expect(done?.state).toBe('completed');
    expect(ran).toBeGreaterThanOrEqual(2);
    await q.close();
    expect(unhandled).toEqual([]);
  });
});
