import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { spawnEntry, until, type Child } from '../support/process.js';
import { counts, enroll, photos } from './jobs.helpers.js';

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
