/**
 * Concurrent progress streams (SSE), counted per batch and per account. Each open stream polls
 * the database every BATCH_EVENTS_POLL_MS; unbounded, 200 streams on one batch cost about 0.6
 * of a core in embedded mode. Counted in this process: each API replica enforces its own caps.
 */
import { AppError } from '../../../shared/src/domain/errors.js';

/** A suggestion: a slot frees when a stream closes or its batch finishes. */
export const STREAM_RETRY_S = 5;

export interface StreamSlots {
  /** Take a slot for `account` on `batch`, or 429 with Retry-After; the release is idempotent. */
  acquire(account: string, batch: string): () => void;
  /** Open streams now, for tests and health. */
  open(key: { account?: string; batch?: string }): number;
}

export function createStreamSlots(limits: { perBatch: number; perAccount: number }): StreamSlots {
  const byBatch = new Map<string, number>();
  const byAccount = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };
  const refuse = (code: 'stream_limit_batch' | 'stream_limit_account', max: number) =>
    new AppError(429, code, { max, retry_after: STREAM_RETRY_S }, { 'Retry-After': String(STREAM_RETRY_S) });
  return {
    acquire(account, batch) {
      if ((byAccount.get(account) ?? 0) >= limits.perAccount) throw refuse('stream_limit_account', limits.perAccount);
      if ((byBatch.get(batch) ?? 0) >= limits.perBatch) throw refuse('stream_limit_batch', limits.perBatch);
      bump(byAccount, account, 1);
      bump(byBatch, batch, 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        bump(byAccount, account, -1);
        bump(byBatch, batch, -1);
      };
    },
    open: ({ account, batch }) => (account ? byAccount.get(account) ?? 0 : batch ? byBatch.get(batch) ?? 0 : 0),
  };
}
