import { describe } from 'vitest';
import { REDIS_URL, uniqueName } from '../../../../test/support/postgres.js';
import { rateLimitConformance, type RateLimitStoreFactory } from '../../ports/conformance/rate-limit.conformance.js';
import { createMemoryRateLimitStore } from './memory.adapter.js';
import { createRedisRateLimitStore } from './redis.adapter.js';

const memory: RateLimitStoreFactory = async () => createMemoryRateLimitStore();

// One prefix per run, so counters never meet another run's keys; they expire with their windows.
const prefix = `${uniqueName('markless:conf-rl:')}:`;
const redis: RateLimitStoreFactory = async () => createRedisRateLimitStore(REDIS_URL, prefix);

describe.each([
  { name: 'memory', factory: memory },
  { name: 'Redis', factory: redis },
])('RateLimitStore conformance: $name', ({ factory }) => {
  rateLimitConformance(factory);
});
