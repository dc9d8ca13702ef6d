import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, cp, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { migrate } from '../../shared/src/adapters/db/migrate.js';
import { createPgliteDatabase } from '../../shared/src/adapters/db/pglite.adapter.js';
import { createPostgresDatabase } from '../../shared/src/adapters/db/postgres.adapter.js';

/*
 * Creating an empty PGlite database costs far more than migrating it, and a test run boots the
 * service over a hundred times. So the migrated database is made once, by the service's own
 * adapters and migrations, and each test app starts from a copy. The service itself is unchanged:
 * it finds a database with every migration applied and migrates nothing.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const MIGRATIONS = path.join(ROOT, 'shared/src/db/migrations');

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/** Names the migrated state: the migration files and the PGlite build that wrote the folder. */
async function templateKey(): Promise<string> {
  const h = createHash('sha256');
  for (const f of (await readdir(MIGRATIONS)).filter((f) => f.endsWith('.sql')).sort()) {
    h.update(f)
      .update('\0')
      .update(await readFile(path.join(MIGRATIONS, f)))
      .update('\0');
  }
  h.update(await readFile(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json')));
  return h.digest('hex').slice(0, 16);
}

let pgliteTemplate: Promise<string> | undefined;
let postgresTemplate: Promise<string> | undefined;

/**
 * A closed, migrated PGlite folder under the temp dir, kept between runs while the key holds.
 * Built aside and renamed into place, so a process never sees half of one, and two processes
 * building at once both end with the same complete folder.
 */
function pgliteTemplateDir(): Promise<string> {
  pgliteTemplate ??= (async () => {
    const dir = path.join(os.tmpdir(), `markless-template-${await templateKey()}`);
    if (await exists(dir)) return dir;
    const building = await mkdtemp(`${dir}-building-`);
    try {
      const db = await createPgliteDatabase(building);
      await migrate(db);
      await db.close();
      await rename(building, dir).catch(async (e) => {
        if (!(await exists(dir))) throw e;
      });
    } finally {
      await rm(building, { recursive: true, force: true });
    }
    return dir;
  })().catch((e) => {
    pgliteTemplate = undefined;
    throw e;
  });
  return pgliteTemplate;
}

/** Give `dataDir` a migrated PGlite database unless it already holds one. */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const db = path.join(dataDir, 'db');
  if (await exists(db)) return;
  const template = await pgliteTemplateDir();
  // The system's cp copies the folder's thousand-odd small files several times faster than fs.cp.
  await promisify(execFile)('cp', ['-R', template, db]).catch(() => cp(template, db, { recursive: true }));
}

async function admin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * The name of a migrated database on the server that test databases are cloned from
 * (`create database … template`). Nothing stays connected to it, which cloning requires; it is
 * built under another name and renamed, as the PGlite folder is.
 */
export function postgresTemplateName(adminUrl: string): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `markless_template_${await templateKey()}`;
    const found = await admin(adminUrl, (c) => c.query('select 1 from pg_database where datname = $1', [name]));
    if (found.rowCount) return name;
    const building = `markless_test_${randomBytes(6).toString('hex')}`;
    await admin(adminUrl, (c) => c.query(`create database ${building}`));
    try {
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const db = await createPostgresDatabase(url.toString(), 1);
      await migrate(db);
      await db.close();
      await admin(adminUrl, (c) => c.query(`alter database ${building} rename to ${name}`)).catch((e) => {
        // 42P04: another process renamed its own build into place first.
        if (e?.code !== '42P04') throw e;
      });
    } finally {
      await admin(adminUrl, (c) => c.query(`drop database if exists ${building} with (force)`));
    }
    return name;
  })().catch((e) => {
    postgresTemplate = undefined;
    throw e;
  });
  return postgresTemplate;
}
