import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../../../shared/src/logger.js';
import { pickLang } from '../../../shared/src/domain/messages.js';
import { withTrace } from '../../../shared/src/observability/context.js';

const ID_PATTERN = /^[A-Za-z0-9._-]{8,64}$/;

/** Give each request an id (kept from X-Request-Id when sane), a language and a child logger; log its outcome. */
export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const id = ID_PATTERN.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    ctx.state.requestId = id;
    ctx.state.lang = pickLang(ctx.get('accept-language'));
    ctx.state.log = logger.child({ reqId: id });
    ctx.set('X-Request-Id', id);
    try {
      // The trace context carries the request id into every job this request enqueues.
      await withTrace({ requestId: id }, next);
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}
