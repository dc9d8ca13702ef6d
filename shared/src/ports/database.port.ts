/**
 * The relational store. Two adapters implement it: PGlite (embedded, in-process) and a
 * PostgreSQL server (distributed). Both speak the same SQL dialect, so services write plain
 * parameterised SQL (`$1`, `$2`) once.
 *
 * Deliberately left out: an ORM, query builders and connection details. Callers never see
 * which adapter they hold.
 */
export interface Queryable {
  /** Run one parameterised statement and return its rows. */
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
   * Nested calls are not supported; pass the `tx` handle down instead.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Run a script of several statements with no parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /** 'pglite' or 'postgres', for health and logs only. */
  readonly kind: 'pglite' | 'postgres';
}
