import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { schemaMigrationsRepo } from './schema-migrations.repo.js';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../db/migrations');

describe.each(BOTH_DATABASES)('schema_migrations on $name', ({ open }) => {
  const opened = openDatabase(open);

  it('lists every migration file of a migrated database as applied, and records a new one, once', async () => {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
    const { db } = opened;
    await db.transaction(async (tx) => {
      await schemaMigrationsRepo.lock(tx, 1);
      // On a database that has the table already, making it again changes nothing.
      await schemaMigrationsRepo.ensure(tx);
      expect([...(await schemaMigrationsRepo.applied(tx))].sort()).toEqual(files);
      await schemaMigrationsRepo.record(tx, '999_spec.sql');
    });
    const after = await db.transaction((tx) => schemaMigrationsRepo.applied(tx));
    expect([...after].sort()).toEqual([...files, '999_spec.sql'].sort());
    // A name is recorded once: a second record of it is refused.
    await expect(db.transaction((tx) => schemaMigrationsRepo.record(tx, '999_spec.sql'))).rejects.toThrow();
  });
});
