/**
 * The relational store. Two adapters implement it: PGlite (embedded, in-process) and a
 * PostgreSQL server (distributed). Both speak the same SQL dialect, so services write plain
 * parameterised SQL (`$1`, `$2`) once.
 *
 * Deliberately left out: an ORM, query builders and connection details. Callers never see
 * which adapter they hold.
 */
export interface Queryable {
  /**
   * Run one parameterised statement and return its rows. Values come back the same from both
   * adapters: timestamptz as `Date`, int8/bigserial as `number` (a `bigint` past 2^53), jsonb parsed.
   * A jsonb parameter may be a plain object; pass a top-level array or string as
   * `JSON.stringify(value)`, because the PostgreSQL driver sends a JS array as a Postgres array.
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
}

export interface QueryResult<T> {
  rows: T[];
  /** Rows inserted, updated or deleted; 0 for a plain select on some drivers. */
  affectedRows: number;
}

export interface Database extends Queryable {
  /**
   * Run `fn` in one transaction: committed when it resolves, rolled back when it throws.
   * Nested calls are not supported; pass the `tx` handle down instead. Inside `fn` use only `tx`:
   * on PGlite a query on the outer handle waits for the transaction to end, so it never returns.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Run a script of several statements with no parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /** 'pglite' or 'postgres', for health and logs only. */
  readonly kind: 'pglite' | 'postgres';
}
