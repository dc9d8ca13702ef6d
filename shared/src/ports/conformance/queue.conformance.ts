import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { AppError, UnrecoverableJobError } from '../../domain/errors.js';
import type { JobData, JobHandlers, JobName } from '../../domain/jobs.js';
import type { JobQueue, JobRecord } from '../queue.port.js';
import { queuePoolsConformance } from './queue-pools.conformance.js';
import { deferred, handlers, sleep, type QueueAdapterFactory, type QueueNamespace, type QueueOpenOptions } from './queue-harness.js';

const terminal = (r: JobRecord | null) => r?.state === 'completed' || r?.state === 'failed';
/** Longer than any test may run (vitest.config.ts). */
const WAIT_PAST_TEST_TIMEOUT = 10 * 60_000;

/**
 * The behaviour every `JobQueue` adapter must share: the API's enqueue-and-wait, the 202 case,
 * dedup, validation, retries, unrecoverable failures, graceful close and crash recovery. Call
 * inside a `describe` for one adapter.
 */
export function queueConformance(factory: QueueAdapterFactory): void {
  let ns: QueueNamespace;
  let opened: JobQueue[] = [];
  let seq = 0;
  const jobId = (p: string) => `${p}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

  const open = async (opts?: QueueOpenOptions) => {
    const q = await ns.open(opts);
    opened.push(q);
    return q;
  };

  beforeEach(async () => {
    ns = await factory.namespace();
    opened = [];
  });

  afterEach(async () => {
    for (const q of opened) await q.close().catch(() => undefined);
    await ns.destroy();
  });

  describe('enqueue and wait', () => {
    it('runs the handler and waitFor returns the completed record with its result', async () => {
      const q = await open();
      const seen: unknown[] = [];
      await q.startWorker(
        handlers(async (data, ctx) => {
          seen.push({ data, ctx });
          return { model: data.model_version, nested: { list: [1, 'two'] } };
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-complete' });
      // A deadline past the test's own timeout: a waitFor that sat out its deadline instead of
      // answering at completion fails the test, with no bound on how fast the machine is.
      const rec = await q.waitFor(id, WAIT_PAST_TEST_TIMEOUT);
      expect(rec).toMatchObject({
        id,
        name: 'reindex',
        state: 'completed',
        data: { model_version: 'v-complete' },
        result: { model: 'v-complete', nested: { list: [1, 'two'] } },
        attempts: 1,
      });
      expect(rec?.error).toBeUndefined();
      expect(Date.parse(rec!.created_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(Date.parse(rec!.finished_at!)).toBeGreaterThanOrEqual(Date.parse(rec!.created_at));
      expect(seen).toEqual([{ data: { model_version: 'v-complete' }, ctx: { id, attempt: 1 } }]);
      expect(await q.get(id)).toEqual(rec);
    });

    it('waitFor with a short timeout returns the job still pending (the 202 case), then it completes', async () => {
      const q = await open();
      const gate = deferred();
      await q.startWorker(
        handlers(async () => {
          await gate.promise;
          return { ok: true };
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-slow' });
      const t0 = Date.now();
      const pending = await q.waitFor(id, 300);
      const waited = Date.now() - t0;
      expect(waited).toBeGreaterThanOrEqual(250);
      expect(pending?.id).toBe(id);
      expect(['waiting', 'active']).toContain(pending?.state);
      expect(pending?.result).toBeUndefined();
      expect((await q.get(id))?.state).toMatch(/^(waiting|active)$/);
      gate.resolve();
      expect(await q.waitFor(id, 20_000)).toMatchObject({ state: 'completed', result: { ok: true } });
    });

    it('answers null for an unknown job id', async () => {
      const q = await open();
      expect(await q.get(jobId('missing'))).toBeNull();
      expect(await q.waitFor(jobId('missing'), 100)).toBeNull();
    });

    it.runIf(factory.splitApiAndWorker)('lets an API process wait for a job that a separate worker process runs', async () => {
      const api = await open();
      const worker = await open();
      await worker.startWorker(handlers(async (d) => ({ from: 'worker', m: d.model_version })));
      const id = await api.enqueue('reindex', { model_version: 'v-split' });
      expect(await api.waitFor(id, WAIT_PAST_TEST_TIMEOUT)).toMatchObject({ state: 'completed', result: { from: 'worker', m: 'v-split' } });
    });

    it('runs at most `concurrency` jobs at once', async () => {
      const q = await open({ concurrency: 2 });
      const gate = deferred();
      let running = 0;
      let peak = 0;
      await q.startWorker(
        handlers(async () => {
          peak = Math.max(peak, ++running);
          await gate.promise;
          running -= 1;
          return {};
        }),
      );
      const ids = await Promise.all([1, 2, 3].map((i) => q.enqueue('reindex', { model_version: `v-c${i}` })));
      for (let i = 0; i < 100 && running < 2; i++) await sleep(50);
      await sleep(300);
      expect(running).toBe(2);
      gate.resolve();
      for (const id of ids) expect((await q.waitFor(id, 20_000))?.state).toBe('completed');
      expect(peak).toBe(2);
    });
  });

  describe('enqueue', () => {
    it('deduplicates by jobId: the same id enqueued again runs once and keeps the first payload', async () => {
      const q = await open();
      const runs: string[] = [];
      const id = jobId('dedup');
      expect(await q.enqueue('reindex', { model_version: 'first' }, { jobId: id })).toBe(id);
      expect(await q.enqueue('reindex', { model_version: 'second' }, { jobId: id })).toBe(id);
      await q.startWorker(
        handlers(async (d, ctx) => {
          runs.push(`${ctx.id}:${d.model_version}`);
          return {};
        }),
      );
      expect((await q.waitFor(id, 20_000))?.state).toBe('completed');
      // Again after completion; then a sentinel behind it: with one worker slot, a duplicate
      // would have run before the sentinel finished.
      expect(await q.enqueue('reindex', { model_version: 'third' }, { jobId: id })).toBe(id);
      const sentinel = await q.enqueue('reindex', { model_version: 'sentinel' });
      expect((await q.waitFor(sentinel, 20_000))?.state).toBe('completed');
      expect(runs).toEqual([`${id}:first`, `${sentinel}:sentinel`]);
      expect((await q.get(id))?.data).toEqual({ model_version: 'first' });
    });

    it('accepts the same custom jobIds in every adapter and rejects the rest before storing anything', async () => {
      const q = await open();
      const good = [jobId('anchor-entity.v1_x'), 'bafkreiabc123', '6f1c2b8e-3d4a-4c5b-9e6f-7a8b9c0d1e2f'];
      for (const id of good) expect(await q.enqueue('reindex', { model_version: 'v-id' }, { jobId: id })).toBe(id);
      // BullMQ refuses integer-looking ids and colons; the other adapter must refuse them too,
      // or code that works embedded breaks when distributed.
      for (const id of ['12345', 'anchor:entity', 'a b', 'x'.repeat(201), '../x']) {
        await expect(q.enqueue('reindex', { model_version: 'v-id' }, { jobId: id }), id).rejects.toThrow(/invalid job id/);
        expect(await q.get(id)).toBeNull();
      }
    });

    it('rejects an invalid payload with a zod error before storing anything', async () => {
      const q = await open();
      const id = jobId('invalid');
      const bad = { model_version: '' } as JobData<'reindex'>;
      await expect(q.enqueue('reindex', bad, { jobId: id })).rejects.toBeInstanceOf(ZodError);
      const badIdentify = { owner_id: 'not-a-uuid', query_id: 'x', kind: 'tree', images: [] } as never;
      await expect(q.enqueue('identify', badIdentify, { jobId: `${id}-2` })).rejects.toBeInstanceOf(ZodError);
      expect(await q.get(id)).toBeNull();
      expect(await q.get(`${id}-2`)).toBeNull();
    });

    it('stores the parsed payload, defaults applied, and hands it to the handler', async () => {
      const q = await open();
      const got: unknown[] = [];
      const h = handlers(async () => ({}));
      await q.startWorker({
        ...h,
        identify: async (d) => {
          got.push(d);
          return {};
        },
      });
      const payload = {
        owner_id: '6f1c2b8e-3d4a-4c5b-9e6f-7a8b9c0d1e2f',
        query_id: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
        kind: 'fruit' as const,
        images: ['bafkreiaaaaaaaaaaaaaaaa'],
      };
      const id = await q.enqueue('identify', payload);
      const rec = await q.waitFor(id, 20_000);
      expect(rec?.state).toBe('completed');
      expect(rec?.data).toEqual({ ...payload, filters: {} });
      expect(got).toEqual([{ ...payload, filters: {} }]);
    });
  });

  describe('failures', () => {
    it('retries a handler that throws, with ctx.attempt counting up, until it succeeds', async () => {
      const q = await open({ attempts: 3 });
      const attempts: number[] = [];
      await q.startWorker(
        handlers(async (_d, ctx) => {
          attempts.push(ctx.attempt);
          if (ctx.attempt < 3) throw new Error(`flaky ${ctx.attempt}`);
          return { on: ctx.attempt };
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-flaky' });
      const rec = await q.waitFor(id, 20_000);
      expect(rec).toMatchObject({ state: 'completed', result: { on: 3 }, attempts: 3 });
      // The earlier failures are history: a completed job carries no error.
      expect(rec?.error).toBeUndefined();
      expect(attempts).toEqual([1, 2, 3]);
    });

    it('fails for good after `attempts` runs, with an internal error that keeps the message', async () => {
      const q = await open({ attempts: 2 });
      const attempts: number[] = [];
      await q.startWorker(
        handlers(async (_d, ctx) => {
          attempts.push(ctx.attempt);
          throw new Error('disk on fire');
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-broken' });
      const rec = await q.waitFor(id, 20_000);
      expect(rec).toMatchObject({ state: 'failed', attempts: 2, error: { code: 'internal', status: 500 } });
      expect(rec?.error?.message).toContain('disk on fire');
      expect(rec?.result).toBeUndefined();
      expect(rec?.finished_at).toBeDefined();
      expect(attempts).toEqual([1, 2]);
    });

    it('fails at once, with no retry, on an UnrecoverableJobError and keeps its code, status and params', async () => {
      const q = await open({ attempts: 3 });
      let runs = 0;
      await q.startWorker(
        handlers(async () => {
          runs += 1;
          throw new UnrecoverableJobError('cannot decode frame', 415, 'media_undecodable', { frame: 3 });
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-bad-media' });
      const rec = await q.waitFor(id, 20_000);
      expect(rec).toMatchObject({
        state: 'failed',
        attempts: 1,
        error: { code: 'media_undecodable', status: 415, message: 'cannot decode frame', params: { frame: 3 } },
      });
      await sleep(300);
      expect(runs).toBe(1);
      expect((await q.get(id))?.state).toBe('failed');
    });

    it('treats a client-side AppError (4xx) as unrecoverable too', async () => {
      const q = await open({ attempts: 3 });
      let runs = 0;
      await q.startWorker(
        handlers(async () => {
          runs += 1;
          throw new AppError(404, 'not_found', { what: 'individual' });
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-404' });
      const rec = await q.waitFor(id, 20_000);
      expect(rec).toMatchObject({ state: 'failed', error: { code: 'not_found', status: 404, params: { what: 'individual' } } });
      expect(runs).toBe(1);
    });
  });

  describe('workers', () => {
    it('refuses to start a worker when a catalogued job has no handler', async () => {
      const q = await open();
      const partial = { ...handlers(async () => ({})) } as Partial<Record<JobName, unknown>>;
      delete partial.video;
      await expect(q.startWorker(partial as JobHandlers)).rejects.toThrow(/video/);
    });

    it('close() lets the job in flight finish, and its completion is stored, before resolving', async () => {
      const q = await open();
      const started = deferred();
      let finishedAt = 0;
      await q.startWorker(
        handlers(async () => {
          started.resolve();
          await sleep(600);
          finishedAt = Date.now();
          return { finished: true };
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-inflight' });
      await started.promise;
      await q.close();
      const closedAt = Date.now();
      expect(finishedAt).toBeGreaterThan(0);
      expect(closedAt).toBeGreaterThanOrEqual(finishedAt);
      const other = await open();
      expect(await other.get(id)).toMatchObject({ state: 'completed', result: { finished: true } });
    });

    it('close() right after enqueue never leaves a handler running behind it', async () => {
      const q = await open();
      const starts: number[] = [];
      let running = 0;
      await q.startWorker(
        handlers(async () => {
          starts.push(Date.now());
          running += 1;
          await sleep(300);
          running -= 1;
          return { done: true };
        }),
      );
      const id = await q.enqueue('reindex', { model_version: 'v-race' });
      await q.close();
      const closedAt = Date.now();
      expect(running).toBe(0);
      await sleep(400);
      expect(starts.filter((t) => t > closedAt)).toEqual([]);
      const state = (await (await open()).get(id))?.state;
      expect(['waiting', 'completed']).toContain(state);
    });

    it('close() stops taking new jobs', async () => {
      const q = await open();
      let runs = 0;
      await q.startWorker(
        handlers(async () => {
          runs += 1;
          return {};
        }),
      );
      await q.close();
      const api = await open();
      const id = await api.enqueue('reindex', { model_version: 'v-after-close' });
      await sleep(500);
      expect(runs).toBe(0);
      expect((await api.get(id))?.state).toBe('waiting');
    });

    it('runs again, to completion, a job whose worker died mid-run', async () => {
      const api = await open();
      const id = await api.enqueue('reindex', { model_version: 'v-crash' });
      await ns.crashWhileActive(id);
      const restarted = await open();
      // Still marked as running: nothing has noticed the death yet.
      expect((await restarted.get(id))?.state).toBe('active');
      const runs: number[] = [];
      await restarted.startWorker(
        handlers(async (_d, ctx) => {
          runs.push(ctx.attempt);
          return { recovered: true };
        }),
      );
      const rec = await restarted.waitFor(id, 20_000);
      expect(rec).toMatchObject({ state: 'completed', result: { recovered: true } });
      expect(runs).toHaveLength(1);
      expect(terminal(rec)).toBe(true);
    });
  });

  // One queue per job kind, worker pools, fairness, quotas and steering.
  queuePoolsConformance(() => ({ open }));
}
