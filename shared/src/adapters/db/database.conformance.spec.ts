import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { databaseConformance, type DatabaseAdapterFactory } from '../../ports/conformance/database.conformance.js';
import { createPgliteDatabase } from './pglite.adapter.js';
import { createPostgresDatabase } from './postgres.adapter.js';

const pglite: DatabaseAdapterFactory = {
  sharedAccess: false,
  async createStore() {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-pglite-'));
    return {
      open: () => createPgliteDatabase(dir),
      destroy: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

const postgres: DatabaseAdapterFactory = {
  sharedAccess: true,
  async createStore() {
    const { url, drop } = await createTestDatabase();
    return { open: () => createPostgresDatabase(url, 4), destroy: drop };
  },
};

describe.each([
  { name: 'PGlite (temp folder)', factory: pglite },
  { name: 'PostgreSQL server', factory: postgres },
])('Database conformance: $name', ({ factory }) => {
  databaseConformance(factory);
});
