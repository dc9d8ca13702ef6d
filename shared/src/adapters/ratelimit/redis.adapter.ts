import { Redis } from 'ioredis';
import type { RateLimitStore } from '../../ports/rate-limit.port.js';

/** Counters in Redis, shared by every API process. INCR and PEXPIRE run atomically in one script. */
export function createRedisRateLimitStore(url: string, prefix = 'markless:rl:'): RateLimitStore {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  // While Redis is away each call fails on its own (the middleware then lets requests through);
  // without a listener ioredis would print every reconnect attempt.
  redis.on('error', () => undefined);
  const script = `
    local c = redis.call('INCR', KEYS[1])
    if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
    return {c, redis.call('PTTL', KEYS[1])}`;
  return {
    kind: 'redis',
    async hit(key, windowMs) {
      const [count, ttl] = (await redis.eval(script, 1, prefix + key, String(windowMs))) as [number, number];
      return { count, resetMs: ttl > 0 ? ttl : windowMs };
    },
    async close() {
      await redis.quit();
    },
  };
}
