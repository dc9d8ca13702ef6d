import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { QueueQuotaError, type JobRecord, type QueueAdmin, type QueueStats } from '../../ports/queue.port.js';
import { QUEUES, type QueueName } from '../../domain/queues.js';

type RedisClient = Redis;

interface AdminDeps {
  queues: Record<QueueName, Queue>;
  /** This process's workers (empty in an API process). */
  workers: Map<QueueName, Worker>;
  concurrencyOf(q: QueueName): number;
  redis(): Promise<RedisClient>;
  /** Redis hash queue → concurrency, written by operators, read by every worker. */
  steerKey: string;
  pollMs: number;
}

/**
 * Operator steering on BullMQ. Pause and resume are BullMQ's own (global, every worker obeys).
 * A concurrency change is written to one Redis hash that every worker polls, so it reaches
 * workers in other processes and survives their restarts.
 */
export function bullAdmin(d: AdminDeps): QueueAdmin & { startSteering(): Promise<void>; stopSteering(): void } {
  let timer: NodeJS.Timeout | null = null;

  async function steered(): Promise<Partial<Record<QueueName, number>>> {
    const raw = await (await d.redis()).hgetall(d.steerKey);
    return Object.fromEntries(
      Object.entries(raw)
        .map(([q, n]) => [q, Number(n)])
        .filter(([, n]) => Number(n) >= 1),
    );
  }

  async function applySteering(): Promise<void> {
    const wanted = await steered();
    for (const [q, w] of d.workers) {
      const n = wanted[q] ?? d.concurrencyOf(q);
      if (w.concurrency !== n) w.concurrency = n;
    }
  }

  return {
    async stats() {
      const wanted = await steered();
      return Promise.all(
        QUEUES.map(async (q): Promise<QueueStats> => {
          const c = await d.queues[q].getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed');
          return {
            queue: q,
            waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
            active: c.active ?? 0,
            delayed: c.delayed ?? 0,
            failed: c.failed ?? 0,
            completed: c.completed ?? 0,
            paused: await d.queues[q].isPaused(),
            concurrency: wanted[q] ?? d.concurrencyOf(q),
          };
        }),
      );
    },
    pause: (q) => d.queues[q].pause(),
    resume: (q) => d.queues[q].resume(),
    async retryFailed(q) {
      const n = (await d.queues[q].getJobCounts('failed')).failed ?? 0;
      if (n) await d.queues[q].retryJobs({ state: 'failed', count: 1000 });
      return n;
    },
    async removeFailed(q) {
      return (await d.queues[q].clean(0, 100_000, 'failed')).length;
    },
    async setConcurrency(q, n) {
      await (await d.redis()).hset(d.steerKey, q, String(n));
      await applySteering();
    },
    async startSteering() {
      await applySteering();
      timer = setInterval(() => void applySteering().catch(() => undefined), d.pollMs);
      timer.unref();
    },
    stopSteering() {
      if (timer) clearInterval(timer);
    },
  };
}

/**
 * Per-owner quota of jobs waiting or running, as one Redis sorted set of job ids per owner.
 * Workers remove a job when it finishes for good. A job that left without telling (a worker
 * killed past BullMQ's stalled limit, a removed job) is pruned the next time the owner is at
 * the limit, by asking the queue for each member's state, so the set heals itself.
 * Concurrent enqueues of one owner can overshoot by the number of requests in flight.
 */
export function ownerQuota(redis: () => Promise<RedisClient>, keyPrefix: string, limit: number, retryAfterS = 10) {
  let lookup: ((id: string) => Promise<JobRecord | null>) | null = null;
  const key = (owner: string) => keyPrefix + owner;
  // Jobs still holding a unit (a batch's rows share one): the unit is released with the last of them.
  const held = (owner: string, unit: string) => `${keyPrefix}${owner}:unit:${unit}`;
  const isBatch = (unit: string) => unit.startsWith('batch-');

  async function prune(r: RedisClient, owner: string): Promise<number> {
    const ids: string[] = await r.zrange(key(owner), '0', '-1');
    const gone = (
      await Promise.all(
        ids.map(async (id) =>
          isBatch(id) ? ((await r.exists(held(owner, id))) ? 'waiting' : 'gone') : (((await lookup!(id))?.state ?? 'gone') as string),
        ),
      )
    )
      .map((state, i) => (state === 'waiting' || state === 'active' ? null : ids[i]!))
      .filter((x): x is string => x !== null);
    if (gone.length) await r.zrem(key(owner), ...gone);
    return ids.length - gone.length;
  }

  return {
    attach(get: (id: string) => Promise<JobRecord | null>) {
      lookup = get;
    },
    async reserve(owner: string | undefined, id: string, unit = id): Promise<void> {
      if (!limit || !owner) return;
      const r = await redis();
      if ((await r.zscore(key(owner), unit)) === null) {
        if ((await r.zcard(key(owner))) >= limit && (await prune(r, owner)) >= limit) throw new QueueQuotaError(limit, retryAfterS);
        await r.zadd(key(owner), Date.now(), unit);
      } else if (!isBatch(unit)) return;
      // Batch rows count their jobs, so the unit lives until the last row ends (a week at most, if one is lost).
      if (isBatch(unit))
        await r
          .multi()
          .sadd(held(owner, unit), id)
          .expire(held(owner, unit), 7 * 86_400)
          .exec();
    },
    async release(owner: string | undefined, id: string, unit = id): Promise<void> {
      if (!limit || !owner) return;
      const r = await redis();
      if (isBatch(unit)) {
        await r.srem(held(owner, unit), id);
        if ((await r.scard(held(owner, unit))) > 0) return;
      }
      await r.zrem(key(owner), unit);
    },
  };
}
