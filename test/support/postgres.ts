import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresTemplateName } from './template.js';

/** Admin connection to the machine's PostgreSQL; override with TEST_PG_URL. */
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A fresh database on the real server, dropped by `drop()`. Each suite gets its own. Empty, or
 * with `migrated` a clone of a database every migration was applied to once (template.ts).
 */
export async function createTestDatabase(opts: { migrated?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `markless_test_${randomBytes(6).toString('hex')}`;
  const template = opts.migrated ? ` template ${await postgresTemplateName(PG_ADMIN_URL)}` : '';
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}${template}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A name no other test run uses, for queues, buckets and usernames. */
export const uniqueName = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;
