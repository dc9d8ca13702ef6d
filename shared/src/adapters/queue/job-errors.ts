import { AppError } from '../../domain/errors.js';
import type { JobRecord } from '../../ports/queue.port.js';

/** Flatten any thrown value into the error shape stored on a failed job. */
export function toJobError(err: unknown): NonNullable<JobRecord['error']> {
  if (err instanceof AppError) return { code: err.code, message: err.code, status: err.status, params: err.params };
  const e = err as { code?: unknown; status?: unknown; params?: unknown; message?: unknown; unrecoverable?: unknown };
  if (e && e.unrecoverable) {
    return {
      code: typeof e.code === 'string' ? e.code : 'validation_failed',
      message: String(e.message ?? 'unrecoverable'),
      status: typeof e.status === 'number' ? e.status : 422,
      params: (e.params as Record<string, unknown>) ?? {},
    };
  }
  // Anything else is ours to fix, not the client's: never leak its message past the API.
  return { code: 'internal', message: String(e?.message ?? err), status: 500 };
}

export const isUnrecoverable = (err: unknown) =>
  Boolean((err as { unrecoverable?: unknown })?.unrecoverable) || (err instanceof AppError && err.status < 500);
