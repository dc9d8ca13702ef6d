import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { idempotentRepliesRepo as repo } from '../../../shared/src/repos/idempotent-replies.repo.js';

/** How long a key's answer is replayed (the job queue keeps job-backed answers 7 days too). */
const KEEP_DAYS = 7;

/**
 * Answers of signed-in writes that carried an Idempotency-Key, per account: the same key on the
 * same method and path replays the stored answer; on another request it is a 422 (a key names one
 * write). Routes with uploads are left to their jobs, which deduplicate by key already.
 */
export function createReplayStore(db: Queryable) {
  return {
    async find(owner: OwnerScope, key: string, method: string, path: string): Promise<{ status: number; body: unknown } | null> {
      const row = await repo.find(db, owner, key, KEEP_DAYS);
      if (!row) return null;
      if (row.method !== method || row.path !== path)
        throw new AppError(422, 'validation_failed', { field: 'Idempotency-Key', rule: 'format', reason: 'reused' });
      return { status: row.status, body: row.body };
    },
    async keep(owner: OwnerScope, key: string, method: string, path: string, status: number, body: unknown): Promise<void> {
      await repo.keep(db, owner, key, { method, path, status, body }, KEEP_DAYS);
    },
  };
}

export type ReplayStore = ReturnType<typeof createReplayStore>;
