/**
 * Statements on `worker_status`: each worker process's row of what it loaded and serves,
 * refreshed by its heartbeat, so the API can report it without loading a model itself.
 */
import type { Queryable } from '../ports/database.port.js';

export const workerStatusRepo = {
  /** Writes a worker's row, or refreshes its `seen_at` and what it loaded. */
  async beat(db: Queryable, workerId: string, queues: readonly string[], recognition: object): Promise<void> {
    await db.query(
      `insert into worker_status (worker_id, queues, recognition) values ($1, $2, $3)
       on conflict (worker_id) do update set seen_at = now(), recognition = excluded.recognition`,
      [workerId, queues, recognition],
    );
  },

  /** What the most recently seen worker published that it loaded and serves, or null. */
  async latestRecognition<T>(db: Queryable): Promise<T | null> {
    const r = await db.query<{ recognition: T }>(
      'select recognition from worker_status where recognition is not null order by seen_at desc limit 1',
    );
    return r.rows[0]?.recognition ?? null;
  },

  /** A round trip to the database and nothing else: the health probe. */
  async ping(db: Queryable): Promise<void> {
    await db.query('select 1');
  },
};
