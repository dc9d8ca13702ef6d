import { mkdtemp, rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { createPgliteDatabase } from '../../shared/src/adapters/db/pglite.adapter.js';
import { createPostgresDatabase } from '../../shared/src/adapters/db/postgres.adapter.js';
import { migrate } from '../../shared/src/adapters/db/migrate.js';
import type { Database } from '../../shared/src/ports/database.port.js';
import { createTestDatabase } from './postgres.js';

export interface OpenDatabase {
  db: Database;
  /** Close the database and remove it. */
  drop(): Promise<void>;
}

/**
 * Both databases the service runs on, migrated and empty, for repository specs:
 * `describe.each(BOTH_DATABASES)('… on $name', ({ open }) => …)`.
 */
export const BOTH_DATABASES: { name: 'PGlite' | 'PostgreSQL'; open(): Promise<OpenDatabase> }[] = [
  {
    name: 'PGlite',
    async open() {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-repo-'));
      const db = await createPgliteDatabase(dir);
      await migrate(db);
      return {
        db,
        drop: async () => {
          await db.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const { url, drop } = await createTestDatabase({ migrated: true });
      const db = await createPostgresDatabase(url, 2);
      await migrate(db);
      return {
        db,
        drop: async () => {
          await db.close();
          await drop();
        },
      };
    },
  },
];

/**
 * The database of one `describe.each(BOTH_DATABASES)` block: opened (migrated, empty) and seeded
 * before its tests, dropped after them. `opened.db` is the handle the tests use.
 */
export function openDatabase(open: () => Promise<OpenDatabase>, seed?: (db: Database) => Promise<unknown>): { readonly db: Database } {
  let opened: OpenDatabase | undefined;
  beforeAll(async () => {
    opened = await open();
    await seed?.(opened.db);
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });
  return {
    get db(): Database {
      if (!opened) throw new Error('the database opens in beforeAll, before any test');
      return opened.db;
    },
  };
}
