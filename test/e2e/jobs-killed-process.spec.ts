import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteDatabase } from '../../shared/src/adapters/db/pglite.adapter.js';
import { api, signup } from '../support/app.js';
import { freePort, spawnEntry, until, type Child } from '../support/process.js';
import { counts, enroll, photos } from './jobs.helpers.js';

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
