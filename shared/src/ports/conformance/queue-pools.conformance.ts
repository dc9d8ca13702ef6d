import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/errors.js';
import type { JobHandlers } from '../../domain/jobs.js';
import type { JobQueue, QueueStats } from '../queue.port.js';
import { deferred, handlers, sleep, type QueueOpenOptions } from './queue-harness.js';

const A = '6f1c2b8e-3d4a-4c5b-9e6f-7a8b9c0d1e2f';
const B = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
let seq = 0;
const identify = (owner: string) => ({
  owner_id: owner,
  query_id: crypto.randomUUID(),
  kind: 'tree' as const,
  images: [`bafkreiq${(++seq).toString().padStart(14, '0')}`],
});

type Open = (o?: QueueOpenOptions) => Promise<JobQueue>;
const statsOf = async (q: JobQueue, name: QueueStats['queue']) => (await q.admin.stats()).find((s) => s.queue === name)!;

/** Poll `fn` until it is true, or fail after `ms` (slow shared machines: never a fixed sleep as the check). */
async function until(fn: () => boolean | Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await sleep(30);
  }
}

/** Handlers whose `identify` records which owner ran and waits on `gate` (when given). */
function identifyHandlers(running: Map<string, number>, done: string[], gate?: Promise<void>): JobHandlers {
  return {
    ...handlers(async () => ({})),
    identify: async (d) => {
      running.set(d.owner_id, (running.get(d.owner_id) ?? 0) + 1);
      if (gate) await gate;
      running.set(d.owner_id, running.get(d.owner_id)! - 1);
      done.push(d.owner_id);
      return {};
    },
  };
}

/**
 * One queue per job kind, pools choosing their queues, per-account fairness and quota, and the
 * operator's steering. Called from `queueConformance`, so every adapter passes the same tests.
 */
export function queuePoolsConformance(ctx: () => { open: Open }): void {
  const open: Open = (o) => ctx().open(o);

  describe('queues and pools', () => {
    it('puts each job on the queue of its kind, and stats count it there', async () => {
      const q = await open();
      await q.enqueue('reindex', { model_version: 'v-where' });
      await q.enqueue('identify', identify(A));
      await q.enqueue('identify', identify(B));
      expect(await statsOf(q, 'reindex')).toMatchObject({ waiting: 1, active: 0, failed: 0, paused: false });
      expect(await statsOf(q, 'identify')).toMatchObject({ waiting: 2 });
      expect(await statsOf(q, 'video')).toMatchObject({ waiting: 0 });
      expect((await q.admin.stats()).map((s) => s.queue).sort()).toEqual(['anchor', 'batch', 'enrol', 'identify', 'reindex', 'video']);
    });

    it('a worker serves only its WORKER_QUEUES, and a backlog on one queue never delays another', async () => {
      const q = await open({ workerQueues: ['identify', 'reindex'] });
      const gate = deferred();
      let reindexRuns = 0;
      const done: string[] = [];
      await q.startWorker({
        ...identifyHandlers(new Map(), done),
        reindex: async () => {
          reindexRuns += 1;
          await gate.promise;
          return {};
        },
      });
      const blocked = await Promise.all([1, 2, 3].map((i) => q.enqueue('reindex', { model_version: `v-backlog-${i}` })));
      const anchorId = await q.enqueue('anchor', { owner_id: A, entity_type: 'tree', entity_id: 'x', event_id: 'e' });
      await until(() => reindexRuns === 1);
      const id = await q.enqueue('identify', identify(B));
      expect((await q.waitFor(id, 15_000))?.state).toBe('completed');
      expect(reindexRuns).toBe(1);
      // Not served here: still waiting for an anchor pool.
      expect((await q.get(anchorId))?.state).toBe('waiting');
      gate.resolve();
      for (const b of blocked) expect((await q.waitFor(b, 15_000))?.state).toBe('completed');
    });

    it('runs each queue at its own concurrency', async () => {
      const q = await open({ concurrency: 1, queueConcurrency: { identify: 3 } });
      const gate = deferred();
      const running = new Map<string, number>();
      await q.startWorker(identifyHandlers(running, [], gate.promise));
      const ids = await Promise.all([A, B, A, B].map((o) => q.enqueue('identify', identify(o))));
      await until(() => (running.get(A) ?? 0) + (running.get(B) ?? 0) === 3);
      await sleep(300);
      expect((running.get(A) ?? 0) + (running.get(B) ?? 0)).toBe(3);
      expect((await statsOf(q, 'identify')).concurrency).toBe(3);
      gate.resolve();
      for (const id of ids) expect((await q.waitFor(id, 15_000))?.state).toBe('completed');
    });
  });

  describe('fairness and quotas', () => {
    it("caps one account's jobs in flight, so another account's job runs past its backlog", async () => {
      const q = await open({ concurrency: 3, fairness: { inflightCap: 1 } });
      const gate = deferred();
      const running = new Map<string, number>();
      let peakA = 0;
      const done: string[] = [];
      const h = identifyHandlers(running, done, gate.promise);
      await q.startWorker({
        ...h,
        identify: async (d, c) => {
          const p = h.identify(d, c);
          if (d.owner_id === A) peakA = Math.max(peakA, running.get(A) ?? 0);
          return p;
        },
      });
      const backlog = await Promise.all([1, 2, 3, 4].map(() => q.enqueue('identify', identify(A))));
      await until(() => running.get(A) === 1);
      const mine = await q.enqueue('identify', identify(B));
      // B gets a free slot while A's three others wait their turn.
      await until(() => running.get(B) === 1);
      await sleep(300);
      expect(running.get(A)).toBe(1);
      gate.resolve();
      expect((await q.waitFor(mine, 15_000))?.state).toBe('completed');
      for (const id of backlog) expect((await q.waitFor(id, 20_000))?.state).toBe('completed');
      expect(peakA).toBe(1);
      expect(done.filter((o) => o === A)).toHaveLength(4);
    });

    it("refuses with 429 and Retry-After past an account's queued quota, storing nothing; other accounts are unaffected", async () => {
      const q = await open({ fairness: { queuedQuota: 2 } });
      const first = [await q.enqueue('identify', identify(A)), await q.enqueue('reindex', { owner_id: A, model_version: 'v-q' })];
      const refused = q.enqueue('identify', identify(A), { jobId: `quota-${Date.now()}` });
      await expect(refused).rejects.toBeInstanceOf(AppError);
      const err = (await refused.catch((e) => e)) as AppError;
      expect(err).toMatchObject({ status: 429, code: 'queue_quota_exceeded', params: { limit: 2 } });
      expect(Number(err.headers['Retry-After'])).toBeGreaterThan(0);
      expect((await statsOf(q, 'identify')).waiting).toBe(1);
      // The same id again is a dedup, not a new job: allowed.
      expect(await q.enqueue('identify', identify(A), { jobId: first[0] })).toBe(first[0]);
      await q.enqueue('identify', identify(B));
      // Once A's jobs are done, A may enqueue again.
      await q.startWorker(identifyHandlers(new Map(), []));
      for (const id of first) expect((await q.waitFor(id, 15_000))?.state).toBe('completed');
      const again = await q.enqueue('identify', identify(A));
      expect((await q.waitFor(again, 15_000))?.state).toBe('completed');
    });
    it('counts every row of one batch as one unit of quota: a batch larger than the quota goes in, and its owner can still identify', async () => {
      const q = await open({ fairness: { queuedQuota: 2 } });
      const batch = crypto.randomUUID();
      const row = (index: number) => ({
        owner_id: A,
        batch_id: batch,
        index,
        cid: `bafkreib${String(index).padStart(14, '0')}`,
        filters: {},
      });
      const rows: string[] = [];
      for (let i = 0; i < 5; i++) rows.push(await q.enqueue('fruit_batch_item', row(i), { jobId: `fb-${batch}-${i}` }));
      // The batch holds one unit; the owner's identify takes the second; a third unit is refused.
      const mine = await q.enqueue('identify', identify(A));
      await expect(q.enqueue('identify', identify(A))).rejects.toMatchObject({ status: 429, code: 'queue_quota_exceeded' });
      const other = { ...row(0), batch_id: crypto.randomUUID() };
      await expect(q.enqueue('fruit_batch_item', other, { jobId: `fb-${other.batch_id}-0` })).rejects.toMatchObject({ status: 429 });
      await q.startWorker({ ...identifyHandlers(new Map(), []), fruit_batch_item: async () => ({}) });
      for (const id of [...rows, mine]) expect((await q.waitFor(id, 15_000))?.state).toBe('completed');
      // With the batch's last row done its unit is free again: two new units fit.
      const again = [await q.enqueue('identify', identify(A)), await q.enqueue('identify', identify(A))];
      for (const id of again) expect((await q.waitFor(id, 15_000))?.state).toBe('completed');
    });
  });

  describe('steering', () => {
    it("pause holds a queue's jobs (others keep running); resume lets them run", async () => {
      const q = await open();
      await q.startWorker(identifyHandlers(new Map(), []));
      await q.admin.pause('identify');
      expect((await statsOf(q, 'identify')).paused).toBe(true);
      const held = await q.enqueue('identify', identify(A));
      const other = await q.enqueue('reindex', { model_version: 'v-unpaused' });
      expect((await q.waitFor(other, 15_000))?.state).toBe('completed');
      expect((await q.get(held))?.state).toBe('waiting');
      await q.admin.resume('identify');
      expect((await q.waitFor(held, 15_000))?.state).toBe('completed');
      expect((await statsOf(q, 'identify')).paused).toBe(false);
    });

    it('retries failed jobs on demand, and removes them', async () => {
      const q = await open({ attempts: 1 });
      let healthy = false;
      await q.startWorker(
        handlers(async () => {
          if (!healthy) throw new Error('dependency down');
          return { fixed: true };
        }),
      );
      const ids = [await q.enqueue('reindex', { model_version: 'v-f1' }), await q.enqueue('reindex', { model_version: 'v-f2' })];
      for (const id of ids) expect((await q.waitFor(id, 15_000))?.state).toBe('failed');
      expect((await statsOf(q, 'reindex')).failed).toBe(2);
      healthy = true;
      expect(await q.admin.retryFailed('reindex')).toBe(2);
      for (const id of ids) expect(await q.waitFor(id, 15_000)).toMatchObject({ state: 'completed', result: { fixed: true } });
      healthy = false;
      const gone = await q.enqueue('reindex', { model_version: 'v-f3' });
      expect((await q.waitFor(gone, 15_000))?.state).toBe('failed');
      expect(await q.admin.removeFailed('reindex')).toBe(1);
      expect(await q.get(gone)).toBeNull();
      expect((await statsOf(q, 'reindex')).failed).toBe(0);
    });

    it("changes a running pool's concurrency (from the next job boundary at the latest)", async () => {
      const q = await open({ concurrency: 1 });
      const first = deferred();
      const rest = deferred();
      let runs = 0;
      let running = 0;
      await q.startWorker({
        ...handlers(async () => ({})),
        identify: async () => {
          running += 1;
          await (++runs === 1 ? first.promise : rest.promise);
          running -= 1;
          return {};
        },
      });
      const ids = await Promise.all([A, B, A, B].map((o) => q.enqueue('identify', identify(o))));
      await until(() => running === 1);
      await q.admin.setConcurrency('identify', 3);
      expect((await statsOf(q, 'identify')).concurrency).toBe(3);
      first.resolve();
      await until(() => running === 3);
      rest.resolve();
      for (const id of ids) expect((await q.waitFor(id, 15_000))?.state).toBe('completed');
    });
  });
}
