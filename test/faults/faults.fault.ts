import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../../api/src/main.js';
import { api, signup } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { individualRowCounts } from '../support/rows.js';
import { freePort, spawnEntry, until, type Child } from '../support/process.js';
import { ownPostgres, ownRedis, ownS3, type OwnPostgres, type OwnRedis, type OwnS3 } from './deps.js';

/**
 * Fault tests of distributed mode (npm run test:faults): a worker killed mid-job, Redis
 * restarted, PostgreSQL restarted, S3 stopped for 10 s. Each: no lost or duplicated rows, jobs
 * finish after recovery, 503 with Retry-After (never 500) while the dependency is down, and
 * /api/health names it. Every dependency here is this file's own, on its own port.
 */

const photos = (seed: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => textureImage(seed * 100 + i, 320)));
const RESULTS = path.resolve(import.meta.dirname, '../../benchmarks/results/faults.json');

async function enroll(url: string, token: string, files: Buffer[]) {
  const r = await fetch(`${url}/api/enroll`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
    body: photoForm(files, { species: 'durian', farm_id: 'farm-f' }),
  });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), json: (await r.json()) as any };
}

const counts = individualRowCounts;

describe('fault tests (distributed mode, own Redis, PostgreSQL and S3)', () => {
  let redis: OwnRedis;
  let pg: OwnPostgres;
  let s3: OwnS3;
  let app: Awaited<ReturnType<typeof start>>;
  let url: string;
  let env: Record<string, string>;
  const workers: Child[] = [];
  const log: Record<string, unknown>[] = [];

  const startWorker = async () => {
    const metricsPort = await freePort();
    const w = spawnEntry('workers/src/main.ts', { ...env, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' });
    workers.push(w);
    await until(async () => (await fetch(`http://127.0.0.1:${metricsPort}/ready`)).ok, 120_000, 250);
    return w;
  };
  const health = async () => (await api(url, 'GET', '/api/health')).json;
  const poll = (token: string, job: string) =>
    until(
      async () => {
        const j = await api(url, 'GET', `/api/jobs/${job}`, { token });
        return j.json?.status === 'completed' || j.json?.status === 'failed' ? j.json : undefined;
      },
      120_000,
      200,
    );

  beforeAll(async () => {
    [redis, pg, s3] = await Promise.all([ownRedis(), ownPostgres(), ownS3()]);
    env = {
      MODE: 'distributed',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      COMMIT: 'faults',
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
      S3_BUCKET: 'faults',
      JOB_WAIT_MS: '0',
      JOB_STALLED_MS: '10000',
      JOB_ATTEMPTS: '10',
      DATA_DIR: path.join(os.tmpdir(), `markless-faults-${process.pid}`),
      WORKER_CONCURRENCY: '1',
    };
    app = await start(env);
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    await startWorker();
  }, 300_000);

  afterAll(async () => {
    for (const w of workers) w.proc.kill('SIGKILL');
    await app?.stop().catch(() => undefined);
    await Promise.all([redis?.destroy(), pg?.destroy(), s3?.destroy()].map((p) => p?.catch(() => undefined)));
    await writeFile(
      RESULTS,
      JSON.stringify({ ran_at: new Date().toISOString(), load_average: os.loadavg(), results: log }, null, 2) + '\n',
    );
  });

  it('a worker killed mid-job: another worker finishes it, each row once', async () => {
    const user = await signup(url, 'fault');
    const r = await enroll(url, user.token, await photos(1, 8));
    expect(r.status).toBe(202);
    await until(
      async () => (await api(url, 'GET', `/api/jobs/${r.json.job_id}`, { token: user.token })).json.status === 'active',
      60_000,
      20,
    );
    workers[0]!.proc.kill('SIGKILL');
    await workers[0]!.exited;
    const t0 = Date.now();
    await startWorker();
    const done = await poll(user.token, r.json.job_id);
    if (done.status !== 'completed')
      console.log(
        'WORKER OUTPUT',
        workers
          .map((w) => w.output())
          .join('\n---\n')
          .slice(-4000),
      );
    expect(done).toMatchObject({ status: 'completed' });
    expect(await counts(app.container.db, done.result.individual_id)).toEqual({ individuals: 1, images: 8, descriptors: 8 });
    log.push({
      fault: 'worker SIGKILL mid-job',
      recovered_ms: Date.now() - t0,
      attempts: done.attempts,
      rows: '1 individual, 8 images, 8 descriptors',
    });
  }, 300_000);

  it('Redis restarted: 503 + Retry-After while down, health says redis, queued jobs finish after', async () => {
    const user = await signup(url, 'fault');
    await redis.stop();
    const t0 = Date.now();
    const during = await enroll(url, user.token, await photos(2, 3));
    expect(during.status).toBe(503);
    expect(Number(during.retryAfter)).toBeGreaterThan(0);
    expect(during.json).toMatchObject({ ok: false, code: 'dependency_unavailable' });
    expect(during.json.error).toContain('redis');
    expect((await health()).dependencies).toMatchObject({ redis: 'down', database: 'up', blobs: 'up' });
    await redis.start();
    await until(async () => (await health()).dependencies.redis === 'up', 60_000, 200);
    const after = await enroll(url, user.token, await photos(3, 3));
    expect(after.status).toBe(202);
    const done = await poll(user.token, after.json.job_id);
    expect(done).toMatchObject({ status: 'completed' });
    expect(await counts(app.container.db, done.result.individual_id)).toEqual({ individuals: 1, images: 3, descriptors: 3 });
    log.push({ fault: 'Redis restart', during: { status: during.status, retry_after: during.retryAfter }, recovered_ms: Date.now() - t0 });
  }, 300_000);

  it('PostgreSQL restarted: 503 while down, health says database, a job queued before finishes once after', async () => {
    const user = await signup(url, 'fault');
    const queued = await enroll(url, user.token, await photos(4, 6));
    expect(queued.status).toBe(202);
    await pg.stop();
    const t0 = Date.now();
    const during = await api(url, 'GET', '/api/me', { token: user.token, headers: { 'accept-language': 'en' } });
    expect(during.status).toBe(503);
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(during.json).toMatchObject({ ok: false, code: 'dependency_unavailable' });
    expect(during.json.error).toContain('database');
    expect((await health()).dependencies).toMatchObject({ database: 'down' });
    await pg.start();
    await until(async () => (await health()).dependencies.database === 'up', 60_000, 200);
    const done = await poll(user.token, queued.json.job_id);
    expect(done).toMatchObject({ status: 'completed' });
    expect(await counts(app.container.db, done.result.individual_id)).toEqual({ individuals: 1, images: 6, descriptors: 6 });
    log.push({
      fault: 'PostgreSQL restart',
      during: { status: during.status, retry_after: during.headers.get('retry-after') },
      recovered_ms: Date.now() - t0,
      attempts: done.attempts,
    });
  }, 300_000);

  it('S3 stopped for 10 s: 503 while down, health says blobs, no partial rows, uploads work after', async () => {
    const user = await signup(url, 'fault');
    const before = (await app.container.db.query<{ n: number }>('select count(*)::int as n from images')).rows[0]!.n;
    await s3.stop();
    const t0 = Date.now();
    const during = await enroll(url, user.token, await photos(5, 2));
    expect(during.status).toBe(503);
    expect(Number(during.retryAfter)).toBeGreaterThan(0);
    expect(during.json.error).toContain('blobs');
    expect((await health()).dependencies).toMatchObject({ blobs: 'down', database: 'up', redis: 'up' });
    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - t0))));
    await s3.start();
    await until(async () => (await health()).dependencies.blobs === 'up', 60_000, 200);
    expect((await app.container.db.query<{ n: number }>('select count(*)::int as n from images')).rows[0]!.n).toBe(before);
    const after = await enroll(url, user.token, await photos(6, 2));
    expect(after.status).toBe(202);
    const done = await poll(user.token, after.json.job_id);
    expect(done).toMatchObject({ status: 'completed' });
    expect(await counts(app.container.db, done.result.individual_id)).toEqual({ individuals: 1, images: 2, descriptors: 2 });
    log.push({
      fault: 'S3 stopped 10 s',
      during: { status: during.status, retry_after: during.retryAfter },
      recovered_ms: Date.now() - t0,
    });
  }, 300_000);
});
