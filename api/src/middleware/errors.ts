import type { Context, Next } from 'koa';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { renderMessage, type Lang, type MessageCode } from '../../../shared/src/domain/messages.js';
import { messages } from '../../../shared/src/domain/messages.js';
import { closeAfterResponse } from './multipart.js';
import { dependencyDown, unreachableDependency, type Dependency } from './dependency.js';

const isCode = (c: string): c is MessageCode => c in messages;

/** Which catalogue sentence renders a validation failure: one per rule, never the validator's English. */
function messageCode(err: AppError): MessageCode {
  const rule = err.params.rule;
  if (err.code === 'validation_failed' && typeof rule === 'string' && isCode(`validation_${rule}`))
    return `validation_${rule}` as MessageCode;
  if (err.code === 'validation_failed') return 'validation_invalid' as MessageCode;
  return err.code;
}

/**
 * The error body every failure uses: `{ok:false, error, detail, code, request_id}` from the
 * message catalogue. `detail` names the field when there is one (spec: "the same text, or which
 * field"); `reason` and `reasons` keep the machine-readable why; `request_id` is what a user quotes.
 */
export function errorBody(ctx: Context, err: AppError) {
  const lang: Lang = ctx.state.lang ?? 'vi';
  const error = renderMessage(messageCode(err), lang, err.params);
  const detail = typeof err.params.field === 'string' ? err.params.field : error;
  const reasons = err.params.reasons;
  return {
    ok: false as const,
    error,
    detail,
    code: err.code,
    ...(typeof err.params.reason === 'string' ? { reason: err.params.reason } : {}),
    ...(reasons !== undefined
      ? {
          reasons: Array.isArray(reasons)
            ? reasons.map(String)
            : String(reasons)
                .split(',')
                .map((r) => r.trim())
                .filter(Boolean),
        }
      : {}),
    // An enrolment names every refused photo at once (workers/src/handlers/enroll-photos.ts).
    ...(Array.isArray(err.params.refused) ? { refused: err.params.refused, overridable: err.params.overridable === true } : {}),
    // An animal enrolment whose photos already show one of the owner's animals names it.
    ...(err.params.existing && typeof err.params.existing === 'object'
      ? { existing: err.params.existing, overridable: err.params.overridable === true }
      : {}),
    ...(ctx.state.requestId ? { request_id: String(ctx.state.requestId) } : {}),
  };
}

/**
 * Render every thrown error through the catalogue. Unknown errors become a 500 whose body says
 * nothing about internals; the log keeps the details, keyed by the request id.
 */
export const errorHandler = errorHandlerFor({ ports: new Map(), retryAfterS: 5 });

/**
 * The error handler, knowing the dependencies' ports: an error that says PostgreSQL, Redis or
 * S3 is unreachable becomes 503 with Retry-After naming it, not a 500.
 */
export function errorHandlerFor(deps: { ports: Map<number, Dependency>; retryAfterS: number }) {
  return (ctx: Context, next: Next) => handle(ctx, next, deps);
}

async function handle(ctx: Context, next: Next, deps: { ports: Map<number, Dependency>; retryAfterS: number }): Promise<void> {
  try {
    await next();
  } catch (thrown) {
    let err: AppError;
    const down = thrown instanceof AppError ? null : unreachableDependency(thrown, deps.ports);
    if (thrown instanceof AppError) err = thrown;
    else if (isJobFailure(thrown)) err = new AppError(thrown.status, thrown.code as MessageCode, thrown.params);
    else if (down) {
      ctx.state.log?.warn({ err: thrown, dependency: down }, 'dependency unreachable');
      err = dependencyDown(down, deps.retryAfterS);
    } else {
      ctx.state.log?.error({ err: thrown }, 'unhandled error');
      err = ERRORS.internal();
    }
    ctx.status = err.status;
    ctx.set(err.headers);
    ctx.body = errorBody(ctx, err);
    if (ctx.state.cutOff) closeAfterResponse(ctx);
  }
}

/** A job's stored failure, re-thrown by the API, keeps its status when it is a client error. */
function isJobFailure(e: unknown): e is { status: number; code: string; params: Record<string, unknown> } {
  const x = e as { status?: unknown; code?: unknown };
  return typeof x?.status === 'number' && x.status < 500 && typeof x.code === 'string' && x.code in messages;
}
