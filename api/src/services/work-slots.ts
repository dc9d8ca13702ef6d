/**
 * A bound on costly work that runs in this process (OCR of a label photo): at most `total` at once
 * on the server and `perAccount` for one account. Past either, the request is refused at once with
 * 429 and Retry-After rather than queued: a queue of 49-megapixel photos would only move the wait
 * (and the memory) somewhere else. Counted per process; each API replica enforces its own bound.
 */
import { AppError } from '../../../shared/src/domain/errors.js';
import type { MessageCode } from '../../../shared/src/domain/messages.js';

export interface WorkSlots {
  /** Run `fn` in a slot held for `account`, or throw the 429 when none is free. */
  run<T>(account: string, fn: () => Promise<T>): Promise<T>;
  /** Work running now, all accounts together. */
  running(): number;
}

export function createWorkSlots(limits: {
  total: number;
  perAccount: number;
  retryAfterS: number;
  codes: { total: MessageCode; account: MessageCode };
}): WorkSlots {
  let running = 0;
  const byAccount = new Map<string, number>();
  const refuse = (code: MessageCode, max: number) =>
    new AppError(429, code, { max, retry_after: limits.retryAfterS }, { 'Retry-After': String(limits.retryAfterS) });
  return {
    async run(account, fn) {
      const mine = byAccount.get(account) ?? 0;
      if (mine >= limits.perAccount) throw refuse(limits.codes.account, limits.perAccount);
      if (running >= limits.total) throw refuse(limits.codes.total, limits.total);
      running++;
      byAccount.set(account, mine + 1);
      try {
        return await fn();
      } finally {
        running--;
        const left = (byAccount.get(account) ?? 1) - 1;
        if (left <= 0) byAccount.delete(account);
        else byAccount.set(account, left);
      }
    },
    running: () => running,
  };
}
