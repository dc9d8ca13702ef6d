/**
 * Statements on `idempotent_replies`: the stored answers of signed-in writes that carried an
 * Idempotency-Key, per account (api/src/http/replay.ts decides what a key may replay). An
 * answer is its account's own: both statements take the signed-in caller's `OwnerScope`.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

export interface StoredReply {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

export const idempotentRepliesRepo = {
  /** The owner's answer stored under `key` within the last `keepDays` days, or null. */
  async find(db: Queryable, owner: OwnerScope, key: string, keepDays: number): Promise<StoredReply | null> {
    const r = await db.query<StoredReply>(
      `select method, path, status, body from idempotent_replies where owner_id = $1 and key = $2 and created_at > now() - ($3 || ' days')::interval`,
      [owner.ownerId, key, String(keepDays)],
    );
    return r.rows[0] ?? null;
  },

  /** Stores an answer under `key`; a key still within `keepDays` keeps the answer it has. */
  async keep(db: Queryable, owner: OwnerScope, key: string, reply: StoredReply, keepDays: number): Promise<void> {
    await db.query(
      `insert into idempotent_replies (owner_id, key, method, path, status, body) values ($1, $2, $3, $4, $5, $6)
       on conflict (owner_id, key) do update set method = excluded.method, path = excluded.path, status = excluded.status, body = excluded.body, created_at = now()
       where idempotent_replies.created_at <= now() - ($7 || ' days')::interval`,
      [owner.ownerId, key, reply.method, reply.path, reply.status, JSON.stringify(reply.body), String(keepDays)],
    );
  },
};
