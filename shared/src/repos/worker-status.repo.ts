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
};
