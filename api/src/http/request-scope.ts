import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../../../shared/src/domain/errors.js';

/** Per-request facts that services deep below a handler need without threading them through every call. */
export interface RequestScope {
  /** The client's `Idempotency-Key` header, when it sent one. */
  idempotencyKey?: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

const KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** The header's value, checked (422 naming the header when malformed), or undefined. */
export function idempotencyKeyOf(header: string): string | undefined {
  if (!header) return undefined;
  if (!KEY.test(header)) throw new AppError(422, 'validation_failed', { field: 'Idempotency-Key', rule: 'format', reason: 'format' });
  return header;
}
