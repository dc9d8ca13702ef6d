import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/src/config/config.js';
import { createContainer, type Container } from '../../shared/src/container.js';
import type { JobHandlers } from '../../shared/src/domain/jobs.js';
import { featureCacheShare, jobHostCount, jobHostOf, type JobHostEvent } from '../../shared/src/jobs/thread-host.js';
import { createLogger } from '../../shared/src/logger.js';
import { createHandlers } from '../../workers/src/handlers/index.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { batchForm, smallFruitPhotos, surface, untilDone } from '../support/fruit-batch.js';
import { photoForm, textureImage } from '../support/images.js';
import { until } from '../support/process.js';
import { individualRowCounts } from '../support/rows.js';

/**
 * Several job hosts (issue 42, item 1): embedded mode runs JOB_HOSTS job-host threads, distributed
 * mode several worker processes, so one job never waits on another's own work. Every assertion is
 * about order and overlap (what ran at once, what finished before what), never a duration.
 */

const ROWS = 4;

/** True when neither owner's jobs all came before the other's first in `order`: the two progressed together. */
function interleaved(order: readonly string[], a: string, b: string): boolean {
  const [fa, la, fb, lb] = [order.indexOf(a), order.lastIndexOf(a), order.indexOf(b), order.lastIndexOf(b)];
  return fa >= 0 && fb >= 0 && fa < lb && fb < la;
}

/** The most rows any one owner had under way at once, from a sequence of rows beginning and ending. */
function mostAtOnce(seq: readonly { owner: string; begins: boolean }[]): number {
  const now = new Map<string, number>();
  let most = 0;
  for (const e of seq) {
    const n = (now.get(e.owner) ?? 0) + (e.begins ? 1 : -1);
    now.set(e.owner, n);
    most = Math.max(most, n);
  }
  return most;
}

async function postBatch(app: TestApp, token: string, photos: { name: string; bytes: Buffer }[]): Promise<string> {
  const r = await api(app.url, 'POST', '/api/fruit/batch', { token, body: batchForm(photos) });
  expect(r.status, r.text).toBe(202);
  return r.json.batch_id as string;
}

describe('how many job hosts, and their share of the engine pool', () => {
  it('defaults to 2 hosts from 4 cores up, 1 below; JOB_HOSTS wins', () => {
    expect(jobHostCount(undefined, 1)).toBe(1);
    expect(jobHostCount(undefined, 2)).toBe(1);
    expect(jobHostCount(undefined, 4)).toBe(2);
    expect(jobHostCount(undefined, 16)).toBe(2);
    expect(jobHostCount(1, 16)).toBe(1);
    expect(jobHostCount(4, 2)).toBe(4);
  });

  it('shares FEATURE_CACHE_MB out between the hosts', () => {
    expect(featureCacheShare(1, 256)).toBe(256);
    expect(featureCacheShare(2, 256)).toBe(128);
    expect(featureCacheShare(3, 100)).toBe(33);
    expect(featureCacheShare(2, 0)).toBe(0);
  });
});

describe('two job hosts (embedded): two accounts’ fruit batches run at once', () => {
  let app: TestApp;
  let dir: string;
  let release: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-hosts-'));
    release = path.join(dir, 'release');
    app = await startTestApp({
      engine: 'deterministic',
      env: {
        JOB_HOSTS: '2',
        // Every job first spins its host thread, without yielding, until `release` exists: a job
        // can only be seen running on a host that no other job is holding.
        MARKLESS_TEST_HOLD_JOBS_UNTIL: release,
        // One row per account at a time, two batch rows at once: one row of each account.
        ACCOUNT_INFLIGHT_CAP: '1',
        QUEUE_CONCURRENCY: 'batch=2',
      },
    });
  }, 180_000);
  afterAll(async () => {
    if (release) await writeFile(release, '').catch(() => {});
    await app?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('holds a row of each account on its own host thread at the same moment, then hands out one row per account at a time, the two batches interleaved', async () => {
    const host = jobHostOf(app.container)!;
    expect(host.size).toBe(2);
    const [s0, s1] = host.stats();
    expect(s0!.alive && s1!.alive).toBe(true);
    expect(s0!.threadId).not.toBe(s1!.threadId);
    // Two hosts share one engine pool, in a thread of its own.
    expect(host.engine()).toMatchObject({ alive: true, restarts: 0 });
    expect([s0!.threadId, s1!.threadId]).not.toContain(host.engine()!.threadId);

    const a = await signup(app.url, 'hosts_a');
    const b = await signup(app.url, 'hosts_b');
    const photos = await smallFruitPhotos(ROWS, [await surface(4201), await surface(4202)]);
    const batchA = await postBatch(app, a.token, photos);
    const batchB = await postBatch(app, b.token, photos);

    // Both host threads are each spinning in a job at once: with one host the second row could
    // not even begin. The two rows are one of each account.
    await until(async () => host.stats().every((s) => s.running === 1), 120_000);
    const running = (e: JobHostEvent) => e.event === 'started' && e.name === 'fruit_batch_item';
    const startedNow = host.events().filter(running);
    expect(startedNow.map((e) => e.host).sort()).toEqual([0, 1]);
    expect(new Set(startedNow.map((e) => e.owner))).toEqual(new Set([a.id, b.id]));
    // Neither batch has finished a row yet: neither went first.
    for (const [token, batch] of [
      [a.token, batchA],
      [b.token, batchB],
    ] as const)
      expect((await api(app.url, 'GET', `/api/fruit/batch/${batch}`, { token })).json.done).toBe(0);

    await writeFile(release, '');
    for (const [token, batch] of [
      [a.token, batchA],
      [b.token, batchB],
    ] as const) {
      const done = await untilDone(app, token, batch, 300_000);
      expect(done.done).toBe(ROWS);
      expect(done.failed).toBe(0);
    }
    const completed = host.events().filter((e) => e.event === 'completed' && e.name === 'fruit_batch_item');
    expect(completed).toHaveLength(2 * ROWS);
    // Each row was handed to exactly one host, once.
    const sent = host.events().filter((e) => e.event === 'sent' && e.name === 'fruit_batch_item');
    expect(new Set(sent.map((e) => e.job)).size).toBe(sent.length);
    // One row per account at a time (ACCOUNT_INFLIGHT_CAP=1): an account's next row is handed
    // to a host only after its previous one finished.
    const rows = host.events().filter((x) => x.name === 'fruit_batch_item' && (x.event === 'sent' || x.event === 'completed'));
    expect(mostAtOnce(rows.map((e) => ({ owner: e.owner!, begins: e.event === 'sent' })))).toBe(1);
    // Both batches progressed together: each account had a row handed out before the other's
    // last. Which finishes last is the scheduler's business: a row may take several of the
    // other account's rows' time on a loaded machine, so completion order is not asserted.
    expect(
      interleaved(
        sent.map((e) => e.owner!),
        a.id,
        b.id,
      ),
    ).toBe(true);
    // Both hosts did work.
    expect(new Set(completed.map((e) => e.host))).toEqual(new Set([0, 1]));
  }, 600_000);
});

describe('two job hosts share one engine pool (embedded, real engine)', () => {
  let app: TestApp;
  let dir: string;
  let killed: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-engine-'));
    killed = path.join(dir, 'arm.killed');
    app = await startTestApp({
      env: {
        // One pool thread in all: were the pool split between hosts, each would need its own.
        JOB_HOSTS: '2',
        ENGINE_POOL_SIZE: '1',
        QUEUE_CONCURRENCY: 'batch=2',
        ACCOUNT_INFLIGHT_CAP: '2',
        // The engine thread dies on its first call once `arm` exists (the second story).
        MARKLESS_TEST_KILL_ENGINE_WHEN: path.join(dir, 'arm'),
      },
    });
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("describes both hosts' photos in the engine thread's one pool", async () => {
    const host = jobHostOf(app.container)!;
    expect(host.engine()!.settings).toMatchObject({ size: 1 });
    const u = await signup(app.url, 'sharedpool');
    const photos = await smallFruitPhotos(ROWS, [await surface(4231), await surface(4232)]);
    const done = await untilDone(app, u.token, await postBatch(app, u.token, photos), 300_000);
    expect(done.done).toBe(ROWS);
    expect(done.failed).toBe(0);
    // Both hosts ran rows, and both had them described by the engine thread.
    const completed = host.events().filter((e) => e.event === 'completed' && e.name === 'fruit_batch_item');
    expect(new Set(completed.map((e) => e.host))).toEqual(new Set([0, 1]));
    for (const s of host.stats()) expect(s.engineCalls, `host ${s.index}`).toBeGreaterThan(0);
  }, 600_000);

  it('an engine thread that dies is started again, the hosts reach the new one, and the jobs it failed are retried', async () => {
    const host = jobHostOf(app.container)!;
    const u = await signup(app.url, 'enginekill');
    const photos = await smallFruitPhotos(ROWS, [await surface(4233), await surface(4234)]);
    // Armed now: the engine thread ends on its next call, a describe of this batch.
    await writeFile(path.join(dir, 'arm'), '');
    const before = host.stats().reduce((n, s) => n + s.engineCalls, 0);
    expect(before).toBeGreaterThan(0);
    const done = await untilDone(app, u.token, await postBatch(app, u.token, photos), 300_000);
    expect(done.done).toBe(ROWS);
    expect(done.failed).toBe(0);
    expect(existsSync(killed)).toBe(true);
    expect(host.engine()).toMatchObject({ alive: true, restarts: 1 });
    const lost = host.events().filter((e) => e.event === 'failed' && e.name === 'fruit_batch_item');
    expect(lost.length).toBeGreaterThan(0);
    // Every row completed once in the end.
    const rows = host.events().filter((e) => e.event === 'completed' && e.name === 'fruit_batch_item');
    expect(new Set(rows.map((e) => e.job)).size).toBe(2 * ROWS);
  }, 600_000);
});

describe('a killed job host (embedded, two hosts)', () => {
  let app: TestApp;
  let dir: string;
  let killed: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-hostkill-'));
    killed = path.join(dir, 'killed');
    app = await startTestApp({
      engine: 'deterministic',
      // The first enrolment runs to the end (its rows committed), then its host thread is ended
      // before it can answer: the job is lost with the thread, and must be retried.
      env: { JOB_HOSTS: '2', MARKLESS_TEST_KILL_HOST_AFTER_JOB: killed, MARKLESS_TEST_KILL_HOST_ON: 'enroll' },
    });
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('fails only its own job, which is retried once and completes without a duplicate row; the host is started again', async () => {
    const host = jobHostOf(app.container)!;
    const u = await signup(app.url, 'hostkill');
    const photos = await Promise.all([0, 1].map((i) => textureImage(4210 + i, 384)));
    const r = await api(app.url, 'POST', '/api/enroll', { token: u.token, body: photoForm(photos, { species: 'durian' }) });
    expect(r.status, r.text).toBe(200);
    expect(existsSync(killed)).toBe(true);
    const victim = Number(readFileSync(killed, 'utf8'));

    const steps = host.events().filter((e) => e.name === 'enroll');
    const job = steps[0]!.job;
    expect(steps.every((e) => e.job === job)).toBe(true);
    // Attempt 1 was lost with the killed host; attempt 2 completed; nothing else.
    expect(steps.filter((e) => e.event === 'lost').map((e) => [e.host, e.attempt])).toEqual([[victim, 1]]);
    expect(steps.filter((e) => e.event === 'completed').map((e) => e.attempt)).toEqual([2]);
    expect(steps.filter((e) => e.event === 'failed')).toEqual([]);
    const j = await api(app.url, 'GET', `/api/jobs/${job}`, { token: u.token });
    expect(j.json).toMatchObject({ status: 'completed', attempts: 2 });

    // Idempotent: the first attempt's rows were committed before the kill, and the retry added none.
    expect(await individualRowCounts(app.container.db, r.json.individual_id ?? r.json.tree_id)).toEqual({
      individuals: 1,
      images: 2,
      descriptors: 2,
    });
    const trees = await api(app.url, 'GET', '/api/trees', { token: u.token });
    expect(trees.json.count).toBe(1);
    expect(trees.json.trees[0].image_count).toBe(2);

    // The killed host is started again (a new thread), and the other one never stopped.
    await until(async () => {
      const s = host.stats()[victim]!;
      return s.alive && s.restarts === 1;
    }, 120_000);
    const other = host.stats()[1 - victim]!;
    expect(other).toMatchObject({ alive: true, restarts: 0, lost: 0 });
    // And it takes jobs again: an identify answers.
    const id = await api(app.url, 'POST', '/api/identify', { token: u.token, body: photoForm([photos[0]!]) });
    expect(id.status, id.text).toBe(200);
  }, 600_000);
});

describe('two worker processes (distributed): two accounts’ fruit batches run at once', () => {
  let app: TestApp;
  const workers: Container[] = [];
  const runningOn = [0, 0];
  const log: { worker: number; owner: string; event: 'started' | 'completed' }[] = [];
  let bothAtOnce = false;
  let openGate!: () => void;
  const gate = new Promise<void>((r) => (openGate = r));

  /** Each job first waits until both workers run one (or a minute passes, then the test fails below). */
  function observed(worker: number, handlers: JobHandlers): JobHandlers {
    const out: Record<string, unknown> = {};
    for (const [name, h] of Object.entries(handlers) as [string, (d: unknown, ctx: unknown) => Promise<unknown>][]) {
      out[name] = async (data: { owner_id?: string }, ctx: unknown) => {
        if (name !== 'fruit_batch_item') return h(data, ctx);
        runningOn[worker]!++;
        log.push({ worker, owner: data.owner_id!, event: 'started' });
        if (runningOn.every((n) => n > 0)) {
          bothAtOnce = true;
          openGate();
        }
        await Promise.race([gate, new Promise((r) => setTimeout(r, 60_000).unref())]);
        try {
          return await h(data, ctx);
        } finally {
          runningOn[worker]!--;
          log.push({ worker, owner: data.owner_id!, event: 'completed' });
        }
      };
    }
    return out as JobHandlers;
  }

  beforeAll(async () => {
    app = await startTestApp({
      mode: 'distributed',
      worker: false,
      engine: 'deterministic',
      // Each worker runs one job at a time; one row per account at a time.
      env: { WORKER_CONCURRENCY: '1', ACCOUNT_INFLIGHT_CAP: '1' },
    });
    for (const i of [0, 1]) {
      // Each worker its own container (connections, engine pool), as a separate process would have.
      const w = await createContainer(loadConfig(app.env), { logger: createLogger('silent') });
      await w.queue.startWorker(observed(i, await createHandlers(w)));
      workers.push(w);
    }
  }, 180_000);
  afterAll(async () => {
    openGate?.();
    for (const w of workers) await w.close();
    await app?.stop();
  });

  it('runs a row on each worker at the same moment, one row per account at a time, the two batches interleaved', async () => {
    const a = await signup(app.url, 'workers_a');
    const b = await signup(app.url, 'workers_b');
    const photos = await smallFruitPhotos(ROWS, [await surface(4221), await surface(4222)]);
    const batchA = await postBatch(app, a.token, photos);
    const batchB = await postBatch(app, b.token, photos);
    for (const [token, batch] of [
      [a.token, batchA],
      [b.token, batchB],
    ] as const) {
      const done = await untilDone(app, token, batch, 300_000);
      expect(done.done).toBe(ROWS);
      expect(done.failed).toBe(0);
    }
    expect(bothAtOnce, 'the two workers never ran a row at the same time').toBe(true);
    const firstTwo = log.filter((e) => e.event === 'started').slice(0, 2);
    expect(firstTwo.map((e) => e.worker).sort()).toEqual([0, 1]);
    expect(new Set(firstTwo.map((e) => e.owner))).toEqual(new Set([a.id, b.id]));
    expect(log.filter((e) => e.event === 'completed')).toHaveLength(2 * ROWS);
    // One row per account at a time, and each account had a row under way before the other's
    // last began (completion order is the scheduler's business, as in the embedded case above).
    expect(mostAtOnce(log.map((e) => ({ owner: e.owner, begins: e.event === 'started' })))).toBe(1);
    expect(
      interleaved(
        log.filter((e) => e.event === 'started').map((e) => e.owner),
        a.id,
        b.id,
      ),
    ).toBe(true);
  }, 600_000);
});
