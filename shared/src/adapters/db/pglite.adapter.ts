import { mkdir } from 'node:fs/promises';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable, QueryResult } from '../../ports/database.port.js';

function wrap(q: PGlite | Transaction): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params as unknown[]);
      return { rows: r.rows, affectedRows: r.affectedRows ?? 0 };
    },
  };
}

/**
 * Embedded PostgreSQL compiled to WASM. One connection per process, so PGlite serialises
 * statements and transactions itself; `dir` undefined keeps everything in memory (tests).
 */
export async function createPgliteDatabase(dir?: string): Promise<Database> {
  if (dir) await mkdir(dir, { recursive: true });
  // bytea as a Buffer, as the pg driver returns it (PGlite's default is a plain Uint8Array, whose
  // toString/equals differ), so code reading bytes behaves the same in both modes.
  const parsers = { [types.BYTEA]: (x: string) => Buffer.from(x.slice(2), 'hex') };
  const db = await PGlite.create(dir ? { dataDir: dir, parsers } : { parsers });
  const base = wrap(db);
  return {
    kind: 'pglite',
    query: base.query,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    exec: async (sql) => {
      await db.exec(sql);
    },
    close: () => db.close(),
  };
}
