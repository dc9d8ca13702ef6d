import type { RateLimitStore } from '../../ports/rate-limit.port.js';

/** Counters in this process's memory: right for embedded mode, where one process sees every request. */
export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
  }, 60_000);
  sweep.unref();
  return {
    kind: 'memory',
    async hit(key, windowMs) {
      const now = Date.now();
      let w = windows.get(key);
      if (!w || w.resetAt <= now) {
        w = { count: 0, resetAt: now + windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return { count: w.count, resetMs: w.resetAt - now };
    },
    async close() {
      clearInterval(sweep);
      windows.clear();
    },
  };
}
