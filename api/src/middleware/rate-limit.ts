import type { Context, Next } from 'koa';
import type { RateLimitStore } from '../../../shared/src/ports/rate-limit.port.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { ASSET_NAME } from '../web/static-files.js';

/**
 * Fixed-window limit. Throws 429 with Retry-After in whole seconds, rounded up so a client that
 * waits exactly that long is let through.
 */
export async function enforceRateLimit(store: RateLimitStore, key: string, limit: number, windowMs: number): Promise<void> {
  const { count, resetMs } = await store.hit(key, windowMs);
  if (count > limit) throw ERRORS.rateLimited(Math.max(1, Math.ceil(resetMs / 1000)));
}

/**
 * The web app's own files (`GET /app/<file>`, `/sw.js`, the manifest): served from memory with
 * ETags, the same few dozen names for everyone. They are not metered: a reload fetches every
 * module, and a packing house's phones behind one address would otherwise spend the budget their
 * calls need on the app itself, and see a page stuck loading.
 */
export function isAppFile(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (path === '/sw.js' || path === '/manifest.webmanifest') return true;
  return path.startsWith('/app/') && ASSET_NAME.test(path.slice('/app/'.length));
}

/**
 * A per-client budget on every other request; the client is the caller's IP. While the store itself
 * is unreachable (Redis restarting) requests pass unmetered: refusing them all would turn a
 * rate-limit outage into a full outage, and health must still say what is down.
 */
export function rateLimit(store: RateLimitStore, perMinute: number) {
  return async (ctx: Context, next: Next) => {
    if (isAppFile(ctx.method, ctx.path)) return next();
    try {
      await enforceRateLimit(store, `all:${ctx.ip}`, perMinute, 60_000);
    } catch (err) {
      if ((err as { status?: unknown }).status === 429) throw err;
      ctx.state.log?.warn({ err }, 'rate-limit store unreachable; request not metered');
    }
    await next();
  };
}
