import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, PG_ADMIN_URL } from '../../../../test/support/postgres.js';
import type { Database } from '../../ports/database.port.js';
import { createPostgresDatabase } from './postgres.adapter.js';

// Server-only behaviour; what both database adapters share is in database.conformance.spec.ts.
describe('PostgreSQL adapter: connections', () => {
  let test: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Database;

  beforeAll(async () => {
    test = await createTestDatabase();
    db = await createPostgresDatabase(test.url, 3);
  });

  afterAll(async () => {
    await db?.close().catch(() => undefined);
    await test?.drop();
  });

  it('keeps working after the server kills its connections (restart, failover)', async () => {
    await db.exec('create table kept (v text); insert into kept values ($$before$$);');
    await Promise.all([db.query('select pg_sleep(0.05)'), db.query('select pg_sleep(0.05)')]);
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      const killed = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [new URL(test.url).pathname.slice(1)],
      );
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await new Promise((r) => setTimeout(r, 200));
    const r = await db.query<{ v: string }>('select v from kept');
    expect(r.rows).toEqual([{ v: 'before' }]);
  });

  it('fails at creation, not at the first request, when the server cannot be reached', async () => {
    await expect(createPostgresDatabase('postgres://postgres@127.0.0.1:1/none', 1)).rejects.toThrow();
  });
});
