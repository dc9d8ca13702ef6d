import type { Context, Next } from 'koa';
import type { Metrics } from '../../../shared/src/observability/metrics.js';

/**
 * Count and time every request under its route template (`/api/jobs/:id`), never the raw path,
 * so label values stay bounded. Mounted outside the error handler: the status is the final one.
 */
export function httpMetrics(metrics: Metrics) {
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      metrics.httpRequest(ctx.method, String(route), ctx.status, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
