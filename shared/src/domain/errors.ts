import type { MessageCode } from './messages.js';

/**
 * A failure the client is told about. Carries the HTTP status and a catalogue code; the one
 * error handler renders it. `expose` follows Koa: a 5xx never shows its details.
 */
export class AppError extends Error {
  readonly expose: boolean;
  constructor(
    readonly status: number,
    readonly code: MessageCode,
    readonly params: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(code);
    this.expose = status < 500;
  }
}

/**
 * Thrown by job handlers for input that can never succeed (undecodable media). Queues must not
 * retry it; BullMQ's UnrecoverableError plays the same role in distributed mode.
 */
export class UnrecoverableJobError extends Error {
  readonly unrecoverable = true;
  constructor(
    message: string,
    readonly status = 422,
    readonly code: MessageCode | string = 'validation_failed',
    readonly params: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Factories, so call sites read as intent: `throw ERRORS.notFound()`. */
export const ERRORS = {
  validation: (field: string, reason: string) => new AppError(422, 'validation_failed', { field, reason }),
  invalidJson: () => new AppError(422, 'invalid_json', { field: 'body' }),
  notFound: () => new AppError(404, 'not_found'),
  routeNotFound: () => new AppError(404, 'route_not_found'),
  unauthorized: () => new AppError(401, 'unauthorized'),
  forbidden: () => new AppError(403, 'forbidden'),
  adminOnly: () => new AppError(403, 'admin_only'),
  tooLarge: (limitBytes: number) =>
    new AppError(413, 'payload_too_large', { limit_mb: Math.round(limitBytes / 1_000_000), limit_bytes: limitBytes }),
  tooManyFiles: () => new AppError(413, 'too_many_files'),
  rateLimited: (retryAfterS: number) =>
    new AppError(429, 'rate_limited', { retry_after: retryAfterS }, { 'Retry-After': String(retryAfterS) }),
  internal: () => new AppError(500, 'internal'),
  rule: (code: MessageCode, status = 400) => new AppError(status, code),
};
