import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from '../../ports/database.port.js';
import { schemaMigrationsRepo } from '../../repos/schema-migrations.repo.js';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../db/migrations');
// Any constant works; it only has to be the same for every process of this service.
const LOCK_KEY = 7_310_455;

/**
 * Apply the plain-SQL migrations in `shared/src/db/migrations` in file-name order, each once.
 * Safe to run at every start and from several processes at once: an advisory lock makes the
 * starters take turns, and applied names are recorded in `schema_migrations`.
 */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await schemaMigrationsRepo.lock(tx, LOCK_KEY);
    await schemaMigrationsRepo.ensure(tx);
    const done = await schemaMigrationsRepo.applied(tx);
    for (const f of files) {
      if (done.has(f)) continue;
      const sql = await readFile(path.join(dir, f), 'utf8');
      // Statements run one by one through the transaction handle so a failure rolls back all of them.
      for (const stmt of splitSql(sql)) await tx.query(stmt);
      await schemaMigrationsRepo.record(tx, f);
      applied.push(f);
    }
  });
  return applied;
}

/** Split on semicolons at line ends, outside dollar-quoted bodies. Migrations are ours, so this is enough. */
export function splitSql(sql: string): string[] {
  const out: string[] = [];
  let buf = '';
  let inDollar = false;
  for (const line of sql.split('\n')) {
    if (/^\s*--/.test(line) && !inDollar) continue;
    buf += `${line}\n`;
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inDollar = !inDollar;
    if (!inDollar && /;\s*$/.test(line)) {
      out.push(buf.trim());
      buf = '';
    }
  }
  if (buf.trim()) out.push(buf.trim());
  return out;
}
