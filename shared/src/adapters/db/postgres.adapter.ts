import pg from 'pg';
import type { Database, Queryable, QueryResult } from '../../ports/database.port.js';

// PGlite returns int8 as a JS number when it fits exactly and as a bigint past 2^53; do the same,
// so services see one shape in both modes and a large value never silently loses precision.
pg.types.setTypeParser(20, (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
});

function wrap(q: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const r = await q.query(sql, params as unknown[]);
      return { rows: r.rows as T[], affectedRows: r.rowCount ?? 0 };
    },
  };
}

/** A PostgreSQL server reached through a connection pool (distributed mode). */
export async function createPostgresDatabase(url: string, max = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client cut off by the server (restart, failover) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Fail at start, not at the first request, when the server is unreachable.
  await pool.query('select 1');
  const base = wrap(pool);
  return {
    kind: 'postgres',
    query: base.query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}
