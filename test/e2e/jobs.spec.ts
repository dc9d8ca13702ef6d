import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteDatabase } from '../../shared/src/adapters/db/pglite.adapter.js';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { individualRowCounts } from '../support/rows.js';
import { freePort, spawnEntry, until, type Child } from '../support/process.js';

const photos = (seed: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => textureImage(seed * 100 + i, 384)));

async function enroll(url: string, token: string, files: Buffer[]) {
  const r = await fetch(`${url}/api/enroll`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: photoForm(files, { species: 'durian', farm_id: 'farm-1' }),
  });
  return { status: r.status, json: (await r.json()) as any, location: r.headers.get('location') };
}

const counts = individualRowCounts;

describe.each<Mode>(['embedded', 'distributed'])('jobs end to end (%s)', (mode) => {
  let app: TestApp;
  let slow: TestApp;
  let token: string;
  beforeAll(async () => {
    // The deterministic engine: these stories are about the queue (the killed-process ones below
    // keep the real engine, whose jobs last long enough to be caught active).
    app = await startTestApp({ mode, engine: 'deterministic' });
    // JOB_WAIT_MS=0: every job-backed route answers 202 at once and the client polls.
    slow = await startTestApp({ mode, engine: 'deterministic', env: { JOB_WAIT_MS: '0' } });
    token = (await signup(app.url)).token;
  }, 180_000);
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
    // Enrolment names every refused photo in one 422; this one for being undecodable.
    expect(r.json).toMatchObject({
      ok: false,
      code: 'photos_refused',
      detail: 'files',
      overridable: false,
      refused: [{ index: 0, reasons: ['image_undecodable'], warning: false }],
    });
    if (mode === 'embedded') {
      // The embedded queue keeps its jobs in the database: the failed job ran exactly once.
      const jobs = await app.container.db.query<{ attempts: number }>(
        `select attempts from jobs where state = 'failed' and name = 'enroll'`,
      );
      expect(jobs.rows).toEqual([{ attempts: 1 }]);
    }
    const images = await app.container.db.query<{ n: number }>(
      'select count(*)::int as n from images i join blobs b on b.cid = i.cid where b.size = 600',
    );
    expect(images.rows[0]!.n).toBe(0);
    const blobs = await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs where size = 600');
    expect(blobs.rows[0]!.n).toBe(0);
  });
});

describe('a killed process leaves a job that retries without duplicates (embedded)', () => {
  // One story in steps that share state, so no single step holds more than one service start.
  // A step that starts the service is allowed the start's readiness budget (START_MS), since on a
  // loaded 2-core machine starting PGlite and the models alone can take most of a minute.
  const START_MS = 120_000;
  let dataDir: string;
  let child: Child | undefined;
  let url: string;
  let user: { token: string };
  let first: Awaited<ReturnType<typeof enroll>>;
  let second: Awaited<ReturnType<typeof enroll>>;
  let doneResult: any;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-kill-'));
    url = await startService();
    user = await signup(url);
  }, START_MS);
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  async function startService() {
    const port = await freePort();
    child = spawnEntry('api/src/main.ts', {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      JOB_WAIT_MS: '0',
      LOG_LEVEL: 'warn',
      WORKER_CONCURRENCY: '1',
    });
    const base = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${base}/api/health`)).ok, START_MS, 200);
    return base;
  }

  it('SIGKILL mid-job ends the process with the job active', async () => {
    first = await enroll(url, user.token, await photos(4, 10));
    expect(first.status).toBe(202);
    await until(async () => (await api(url, 'GET', first.json.poll, { token: user.token })).json.status === 'active', 30_000, 10);
    child!.proc.kill('SIGKILL');
    await child!.exited;
  });

  it(
    'after a restart the killed job completes once',
    async () => {
      url = await startService();
      doneResult = await until(async () => {
        const j = await api(url, 'GET', first.json.poll, { token: user.token });
        return j.json.status === 'completed' ? j.json : undefined;
      }, START_MS);
      expect(doneResult.attempts).toBeGreaterThanOrEqual(2);
    },
    START_MS,
  );

  it('SIGTERM lets the job in flight finish before exit 0', async () => {
    second = await enroll(url, user.token, await photos(5, 10));
    await until(async () => (await api(url, 'GET', second.json.poll, { token: user.token })).json.status === 'active', 30_000, 10);
    child!.proc.kill('SIGTERM');
    expect(await child!.exited).toBe(0);
  });

  it('both jobs wrote their rows exactly once', async () => {
    const db = await createPgliteDatabase(path.join(dataDir, 'db'));
    try {
      expect(await counts(db, doneResult.result.individual_id)).toEqual({ individuals: 1, images: 10, descriptors: 10 });
      const job = (await db.query<{ state: string; result: any }>('select state, result from jobs where id = $1', [second.json.job_id]))
        .rows[0]!;
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
    // A stall window of 10 s, not 1.5 s: on a loaded machine a busy worker can miss a 750 ms lock
    // renewal, and its own job would be taken from it as "stalled" while it is still working.
    app = await startTestApp({ mode: 'distributed', worker: false, env: { JOB_WAIT_MS: '0', JOB_STALLED_MS: '10000' } });
  }, 120_000);
  afterAll(async () => {
    for (const w of workers) w.proc.kill('SIGKILL');
    await app?.stop();
  });

  const startWorker = () => {
    const w = spawnEntry('workers/src/main.ts', { ...app.env, LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '1' });
    workers.push(w);
    return w;
  };

  // Steps share state; each starts at most one worker and may take that worker's readiness budget.
  const START_MS = 120_000;
  let user: { token: string };
  let first: Awaited<ReturnType<typeof enroll>>;
  let w2: Child;

  it(
    'SIGKILL mid-job: the first worker dies with the job active',
    async () => {
      user = await signup(app.url);
      first = await enroll(app.url, user.token, await photos(6, 6));
      expect(first.status).toBe(202);
      const w1 = startWorker();
      await until(async () => (await api(app.url, 'GET', first.json.poll, { token: user.token })).json.status === 'active', START_MS, 10);
      w1.proc.kill('SIGKILL');
      await w1.exited;
    },
    START_MS,
  );

  it(
    'a second worker finishes the stalled job once',
    async () => {
      w2 = startWorker();
      const done = await until(
        async () => {
          const j = await api(app.url, 'GET', first.json.poll, { token: user.token });
          return j.json.status === 'completed' ? j.json : undefined;
        },
        START_MS,
        100,
      );
      expect(await counts(app.container.db, done.result.individual_id)).toEqual({ individuals: 1, images: 6, descriptors: 6 });
    },
    START_MS,
  );

  it(
    'SIGTERM lets the job in flight finish before the worker exits 0',
    async () => {
      const second = await enroll(app.url, user.token, await photos(7, 6));
      await until(async () => (await api(app.url, 'GET', second.json.poll, { token: user.token })).json.status === 'active', 60_000, 10);
      w2.proc.kill('SIGTERM');
      expect(await w2.exited).toBe(0);
      const after = await api(app.url, 'GET', second.json.poll, { token: user.token });
      expect(after.json.status).toBe('completed');
      expect(await counts(app.container.db, after.json.result.individual_id)).toEqual({ individuals: 1, images: 6, descriptors: 6 });
    },
    START_MS,
  );
});
