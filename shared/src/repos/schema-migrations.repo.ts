/**
 * Statements on `schema_migrations`, the record of which migration files have been applied. The
 * order, the once-only rule and the lock's scope are the migration runner's
 * (shared/src/adapters/db/migrate.ts); these statements only carry them out, inside its transaction.
 */
import type { Queryable } from '../ports/database.port.js';

export const schemaMigrationsRepo = {
  /** Wait for, then hold until the transaction ends, the one lock every starting process takes. */
  async lock(tx: Queryable, key: number): Promise<void> {
    await tx.query('select pg_advisory_xact_lock($1)', [key]);
  },

  /** The record itself, made on the first start of an empty database. */
  async ensure(tx: Queryable): Promise<void> {
    await tx.query('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
  },

  /** The file names already applied. */
  async applied(tx: Queryable): Promise<Set<string>> {
    return new Set((await tx.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name));
  },

  /** Record `name` as applied. */
  async record(tx: Queryable, name: string): Promise<void> {
    await tx.query('insert into schema_migrations (name) values ($1)', [name]);
  },
};
