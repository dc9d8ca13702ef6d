import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimitStore } from '../rate-limit.port.js';

/** What the conformance suite needs from an adapter: a new store object (shared backend allowed). */
export type RateLimitStoreFactory = () => Promise<RateLimitStore>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A key no other test or run uses. */
const newKey = (p: string) => `conf:${p}:${randomBytes(6).toString('hex')}`;

/**
 * The behaviour every `RateLimitStore` adapter must share: fixed windows counted per key.
 * Call inside a `describe` for one adapter.
 */
export function rateLimitConformance(factory: RateLimitStoreFactory): void {
  let store: RateLimitStore;

  beforeAll(async () => {
    store = await factory();
  });

  afterAll(async () => {
    await store?.close();
  });

  describe('fixed windows', () => {
    it('counts hits on one key within a window, with resetMs inside the window and falling', async () => {
      const key = newKey('count');
      const first = await store.hit(key, 10_000);
      expect(first.count).toBe(1);
      expect(first.resetMs).toBeGreaterThan(9_000);
      expect(first.resetMs).toBeLessThanOrEqual(10_000);
      await sleep(30);
      const second = await store.hit(key, 10_000);
      expect(second.count).toBe(2);
      expect(second.resetMs).toBeLessThan(first.resetMs);
      expect(second.resetMs).toBeGreaterThan(0);
      expect((await store.hit(key, 10_000)).count).toBe(3);
    });

    it('counts concurrent hits exactly', async () => {
      const key = newKey('burst');
      const results = await Promise.all(Array.from({ length: 25 }, () => store.hit(key, 10_000)));
      expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    });

    it('starts a new window at 1 once the old one has passed', async () => {
      const key = newKey('reset');
      await store.hit(key, 250);
      expect((await store.hit(key, 250)).count).toBe(2);
      await sleep(400);
      const fresh = await store.hit(key, 250);
      expect(fresh.count).toBe(1);
      expect(fresh.resetMs).toBeGreaterThan(100);
      expect(fresh.resetMs).toBeLessThanOrEqual(250);
    });

    it('keeps keys independent', async () => {
      const a = newKey('a');
      const b = newKey('b');
      for (let i = 0; i < 4; i++) await store.hit(a, 10_000);
      expect((await store.hit(b, 10_000)).count).toBe(1);
      expect((await store.hit(a, 10_000)).count).toBe(5);
    });

    it('shares counts between store objects on the same backend when it is shared', async () => {
      // Memory stores are per process by design; a Redis store must share one budget.
      const key = newKey('shared');
      const other = await factory();
      try {
        await store.hit(key, 10_000);
        const seen = (await other.hit(key, 10_000)).count;
        expect(seen).toBe(store.kind === 'redis' ? 2 : 1);
      } finally {
        await other.close();
      }
    });
  });
}
