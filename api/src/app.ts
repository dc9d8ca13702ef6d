import Koa from 'koa';
import cors from '@koa/cors';
import type { Container } from '../../shared/src/container.js';
import { ERRORS } from '../../shared/src/domain/errors.js';
import { errorHandlerFor } from './middleware/errors.js';
import { dependencyPorts } from './middleware/dependency.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { requestContext } from './middleware/request-context.js';
import { rateLimit } from './middleware/rate-limit.js';
import { buildRouter } from './http/router.js';
import { callerFromRequest } from './http/caller.js';
import type { RouteDef } from './http/route.js';
import type { Services } from './services/index.js';
import { buildRoutes } from './routes/index.js';
import { createReplayStore } from './http/replay.js';

export interface App {
  koa: Koa;
  routes: RouteDef[];
}

/** Build the HTTP application from a container. No I/O happens here; `main.ts` listens. */
export function createApp(container: Container, services: Services): App {
  // Behind TRUST_PROXY_HOPS proxies of ours, the client is that many X-Forwarded-For entries from
  // the right (Koa's maxIpsCount keeps the last N): the left-most entries are whatever the client wrote.
  const koa = new Koa({ proxy: container.config.TRUST_PROXY, maxIpsCount: container.config.TRUST_PROXY_HOPS });
  const routes = buildRoutes(container, services);
  const router = buildRouter(routes, (ctx) => callerFromRequest(ctx, services.auth), createReplayStore(container.db));

  // Errors Koa meets after the answer has started (a streamed blob, an event stream) never reach
  // the error middleware; without a listener Koa prints them to stderr. A client that hangs up
  // mid-download is routine, the rest is the server's to look at.
  koa.on('error', (err: NodeJS.ErrnoException, ctx?: Koa.Context) => {
    const clientGone = err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE';
    container.logger[clientGone ? 'debug' : 'error'](
      { err, path: ctx?.path },
      clientGone ? 'client closed the connection mid-answer' : 'error after the answer started',
    );
  });
  koa.use(requestContext(container.logger));
  koa.use(httpMetrics(container.metrics));
  koa.use(errorHandlerFor({ ports: dependencyPorts(container.config), retryAfterS: container.config.DEPENDENCY_RETRY_AFTER_S }));
  // Open to every origin, never with credentials: cross-origin callers use Bearer tokens, and the
  // session cookie stays a same-origin affair.
  koa.use(cors({ origin: '*', credentials: false, exposeHeaders: ['Retry-After', 'X-Request-Id'], maxAge: 600 }));
  koa.use(rateLimit(container.rateLimits, container.config.RATE_LIMIT_PER_MIN));
  koa.use(router.routes());
  koa.use(router.allowedMethods({ throw: false }));
  koa.use(async (ctx) => {
    if (ctx.status === 404 && ctx.body == null) throw ERRORS.routeNotFound();
  });
  return { koa, routes };
}
