import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { AppError } from '../../../shared/src/domain/errors.js';

/** How long a key's answer is replayed (the job queue keeps job-backed answers 7 days too). */
const KEEP_DAYS = 7;

/**
 * Answers of signed-in writes that carried an Idempotency-Key, per account: the same key on the
 * same method and path replays the stored answer; on another request it is a 422 (a key names one
 * write). Routes with uploads are left to their jobs, which deduplicate by key already.
 */
export function createReplayStore(db: Queryable) {
  return {
    async find(owner: string, key: string, method: string, path: string): Promise<{ status: number; body: unknown } | null> {
      const r = await db.query<{ method: string; path: string; status: number; body: unknown }>(
        `select method, path, status, body from idempotent_replies where owner_id = $1 and key = $2 and created_at > now() - ($3 || ' days')::interval`,
        [owner, key, String(KEEP_DAYS)],
      );
      const row = r.rows[0];
      if (!row) return null;
      if (row.method !== method || row.path !== path)
        throw new AppError(422, 'validation_failed', { field: 'Idempotency-Key', rule: 'format', reason: 'reused' });
      return { status: row.status, body: row.body };
    },
    async keep(owner: string, key: string, method: string, path: string, status: number, body: unknown): Promise<void> {
      await db.query(
        `insert into idempotent_replies (owner_id, key, method, path, status, body) values ($1, $2, $3, $4, $5, $6)
         on conflict (owner_id, key) do update set method = excluded.method, path = excluded.path, status = excluded.status, body = excluded.body, created_at = now()
         where idempotent_replies.created_at <= now() - ($7 || ' days')::interval`,
        [owner, key, method, path, status, JSON.stringify(body), String(KEEP_DAYS)],
      );
    },
  };
}

export type ReplayStore = ReturnType<typeof createReplayStore>;
