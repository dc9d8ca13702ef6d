/**
 * Concurrent progress streams (SSE), counted per subject (a fruit batch or a survey) and per
 * account, all its streams of either kind together. Unbounded, a few hundred open streams on one
 * subject kept the database busy enough to slow every other request. Counted in this process:
 * each API replica enforces its own caps.
 */
import { AppError } from '../../../shared/src/domain/errors.js';

/** A suggestion: a slot frees when a stream closes or its subject finishes. */
export const STREAM_RETRY_S = 5;

export type StreamSubject = 'batch' | 'survey';

export interface StreamSlots {
  /** Take a slot for `account` on the subject `kind`/`id`, or 429 with Retry-After; the release is idempotent. */
  acquire(account: string, id: string, kind?: StreamSubject): () => void;
  /** Open streams now, for tests and health. */
  open(key: { account?: string; batch?: string; survey?: string }): number;
}

export function createStreamSlots(limits: { perBatch: number; perSurvey?: number; perAccount: number }): StreamSlots {
  const bySubject = new Map<string, number>();
  const byAccount = new Map<string, number>();
  const perSubject: Record<StreamSubject, number> = { batch: limits.perBatch, survey: limits.perSurvey ?? limits.perBatch };
  const bump = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };
  const refuse = (code: 'stream_limit_batch' | 'stream_limit_survey' | 'stream_limit_account', max: number) =>
    new AppError(429, code, { max, retry_after: STREAM_RETRY_S }, { 'Retry-After': String(STREAM_RETRY_S) });
  return {
    acquire(account, id, kind = 'batch') {
      const subject = `${kind}:${id}`;
      if ((byAccount.get(account) ?? 0) >= limits.perAccount) throw refuse('stream_limit_account', limits.perAccount);
      if ((bySubject.get(subject) ?? 0) >= perSubject[kind]) throw refuse(`stream_limit_${kind}`, perSubject[kind]);
      bump(byAccount, account, 1);
      bump(bySubject, subject, 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        bump(byAccount, account, -1);
        bump(bySubject, subject, -1);
      };
    },
    open: ({ account, batch, survey }) =>
      account
        ? (byAccount.get(account) ?? 0)
        : batch
          ? (bySubject.get(`batch:${batch}`) ?? 0)
          : survey
            ? (bySubject.get(`survey:${survey}`) ?? 0)
            : 0,
  };
}
