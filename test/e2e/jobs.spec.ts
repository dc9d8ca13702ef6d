import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteDatabase } from '../../shared/src/adapters/db/pglite.adapter.js';
import type { Queryable } from '../../shared/src/ports/database.port.js';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { individualRowCounts } from '../support/rows.js';
import { freePort, spawnEntry, until, type Child } from '../support/process.js';

const photos = (seed: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => textureImage(seed * 100 + i, 384)));

async function enroll(url: string, token: string, files: Buffer[]) {
  const r = await fetch(`${url}/api/enroll`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: photoForm(files, { species: 'durian', farm_id: 'farm-1' }) });
  return { status: r.status, json: (await r.json()) as any, location: r.headers.get('location') };
}

const counts = individualRowCounts;

describe.each<Mode>(['embedded', 'distributed'])('jobs end to end (%s)', (mode) => {
  let app: TestApp;
  let slow: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await startTestApp({ mode });
    // JOB_WAIT_MS=0: every job-backed route answers 202 at once and the client polls.
    slow = await startTestApp({ mode, env: { JOB_WAIT_MS: '0' } });
    token = (await signup(app.url)).token;
  });
  afterAll(async () => {
    await app?.stop();
    await slow?.stop();
  });

  it('enrols through a real job and writes each row once', async () => {
    const r = await enroll(app.url, token, await photos(1, 3));
    expect(r.status).toBe(200);
    expect(r.json.images).toHaveLength(3);
    expect(r.json.model).toMatchObject({ name: expect.any(String), version: expect.any(String) });
    expect(await counts(app.container.db, r.json.individual_id)).toEqual({ individuals: 1, images: 3, descriptors: 3 });
  });

  it('answers 202 with a job to poll when the job outlives JOB_WAIT_MS, and only its owner can see it', async () => {
    const owner = await signup(slow.url);
    const r = await enroll(slow.url, owner.token, await photos(2, 2));
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ ok: true, name: 'enroll', poll: `/api/jobs/${r.json.job_id}` });
    expect(r.location).toBe(r.json.poll);
    const done = await until(async () => {
      const j = await api(slow.url, 'GET', r.json.poll, { token: owner.token });
      return j.json.status === 'completed' ? j.json : undefined;
    });
    expect(done.result.images).toHaveLength(2);
    const stranger = await signup(slow.url);
    const peek = await api(slow.url, 'GET', r.json.poll, { token: stranger.token });
    const missing = await api(slow.url, 'GET', '/api/jobs/no-such-job', { token: stranger.token });
    expect(peek.status).toBe(404);
    expect(peek.text).toBe(missing.text);
  });

  it('fails an undecodable photo at once, without retries, rows or blobs', async () => {
    const truncated = (await textureImage(3, 256)).subarray(0, 600);
    const r = await enroll(app.url, token, [truncated]);
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ ok: false, code: 'image_undecodable', detail: 'files' });
    if (mode === 'embedded') {
      // The embedded queue keeps its jobs in the database: the failed job ran exactly once.
      const jobs = await app.container.db.query<{ attempts: number }>(`select attempts from jobs where state = 'failed' and name = 'enroll'`);
      expect(jobs.rows).toEqual([{ attempts: 1 }]);
    }
    const images = await app.container.db.query<{ n: number }>('select count(*)::int as n from images i join blobs b on b.cid = i.cid where b.size = 600');
    expect(images.rows[0]!.n).toBe(0);
    const blobs = await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs where size = 600');
    expect(blobs.rows[0]!.n).toBe(0);
  });
});

describe('a killed process leaves a job that retries without duplicates (embedded)', () => {
  let dataDir: string;
  let child: Child | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-kill-'));
  });
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const startService = async () => {
    const port = await freePort();
    child = spawnEntry('api/src/main.ts', { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', JOB_WAIT_MS: '0', LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '1' });
    const url = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${url}/api/health`)).ok, 60_000, 200);
    return url;
  };

  it('SIGKILL mid-job, restart: the job completes once; SIGTERM: the job in flight finishes before exit', async () => {
    let url = await startService();
    const user = await signup(url);
    const first = await enroll(url, user.token, await photos(4, 10));
    expect(first.status).toBe(202);
    await until(async () => (await api(url, 'GET', first.json.poll, { token: user.token })).json.status === 'active', 30_000, 10);
    child!.proc.kill('SIGKILL');
    await child!.exited;

    url = await startService();
    const done = await until(async () => {
      const j = await api(url, 'GET', first.json.poll, { token: user.token });
      return j.json.status === 'completed' ? j.json : undefined;
    });
    expect(done.attempts).toBeGreaterThanOrEqual(2);

    const second = await enroll(url, user.token, await photos(5, 10));
    await until(async () => (await api(url, 'GET', second.json.poll, { token: user.token })).json.status === 'active', 30_000, 10);
    child!.proc.kill('SIGTERM');
    expect(await child!.exited).toBe(0);

    const db = await createPgliteDatabase(path.join(dataDir, 'db'));
    try {
      expect(await counts(db, done.result.individual_id)).toEqual({ individuals: 1, images: 10, descriptors: 10 });
      const job = (await db.query<{ state: string; result: any }>('select state, result from jobs where id = $1', [second.json.job_id])).rows[0]!;
      expect(job.state).toBe('completed');
      expect(await counts(db, job.result.individual_id)).toEqual({ individuals: 1, images: 10, descriptors: 10 });
    } finally {
      await db.close();
    }
  });
});

describe('a killed worker leaves a job that another worker retries (distributed)', () => {
  let app: TestApp;
  const workers: Child[] = [];
  beforeAll(async () => {
    app = await startTestApp({ mode: 'distributed', worker: false, env: { JOB_WAIT_MS: '0', JOB_STALLED_MS: '1500' } });
  });
  afterAll(async () => {
    for (const w of workers) w.proc.kill('SIGKILL');
    await app?.stop();
  });

  const startWorker = () => {
    const w = spawnEntry('workers/src/main.ts', { ...app.env, LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '1' });
    workers.push(w);
    return w;
  };

  it('SIGKILL mid-job: a second worker finishes it once; SIGTERM lets the job in flight finish', async () => {
    const user = await signup(app.url);
    const first = await enroll(app.url, user.token, await photos(6, 10));
    expect(first.status).toBe(202);
    const w1 = startWorker();
    await until(async () => (await api(app.url, 'GET', first.json.poll, { token: user.token })).json.status === 'active', 60_000, 10);
    w1.proc.kill('SIGKILL');
    await w1.exited;

    const w2 = startWorker();
    const done = await until(async () => {
      const j = await api(app.url, 'GET', first.json.poll, { token: user.token });
      return j.json.status === 'completed' ? j.json : undefined;
    }, 60_000, 100);
    expect(await counts(app.container.db, done.result.individual_id)).toEqual({ individuals: 1, images: 10, descriptors: 10 });

    const second = await enroll(app.url, user.token, await photos(7, 10));
    await until(async () => (await api(app.url, 'GET', second.json.poll, { token: user.token })).json.status === 'active', 60_000, 10);
    w2.proc.kill('SIGTERM');
    expect(await w2.exited).toBe(0);
    const after = await api(app.url, 'GET', second.json.poll, { token: user.token });
    expect(after.json.status).toBe('completed');
    expect(await counts(app.container.db, after.json.result.individual_id)).toEqual({ individuals: 1, images: 10, descriptors: 10 });
  });
});
