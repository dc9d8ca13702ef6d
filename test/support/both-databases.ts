import { mkdtemp, rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { createPgliteDatabase } from '../../shared/src/adapters/db/pglite.adapter.js';
import { createPostgresDatabase } from '../../shared/src/adapters/db/postgres.adapter.js';
import { migrate } from '../../shared/src/adapters/db/migrate.js';
import type { Database } from '../../shared/src/ports/database.port.js';
import { createTestDatabase } from './postgres.js';
import { seedPgliteDataDir } from './template.js';

export interface OpenDatabase {
  db: Database;
  /** Close the database and remove it. */
  drop(): Promise<void>;
}

/**
 * A migrated, empty PGlite database in a folder of its own: a copy of the migrated template, as
 * the test apps start from (template.ts), since creating an empty PGlite database costs several
 * times what copying one does. `migrate` then finds every migration applied, as the service would.
 */
export async function openMigratedPglite(): Promise<OpenDatabase> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-repo-'));
  await seedPgliteDataDir(dir);
  const db = await createPgliteDatabase(path.join(dir, 'db'));
  await migrate(db);
  return {
    db,
    drop: async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Both databases the service runs on, migrated and empty, for repository specs:
 * `describe.each(BOTH_DATABASES)('… on $name', ({ open }) => …)`.
 */
export const BOTH_DATABASES: { name: 'PGlite' | 'PostgreSQL'; open(): Promise<OpenDatabase> }[] = [
  { name: 'PGlite', open: openMigratedPglite },
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
