/**
 * The service stacks benchmarks run against: embedded (one process) and distributed (an API plus
 * N worker processes on this machine's PostgreSQL, Redis and an s3rver bucket). `env` is added to
 * every process's settings (engine pool size, batch size...).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { start } from '../api/src/main.js';
import type { Database } from '../shared/src/ports/database.port.js';
import { createTestDatabase, REDIS_URL, uniqueName } from '../test/support/postgres.js';
import { spawnEntry, until, type Child } from '../test/support/process.js';
import { startS3 } from '../test/support/s3.js';

export interface Stack {
  url: string;
  /** The stack's database, for reading what it wrote through the repositories. */
  db: Database;
  /** Worker processes (distributed), for their CPU time. */
  pids?: number[];
  stop: () => Promise<void>;
}

export async function embedded(extra: Record<string, string> = {}): Promise<Stack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-bench-'));
  const app = await start({
    MODE: 'embedded',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    COMMIT: 'bench',
    ...extra,
  });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db: app.container.db,
    stop: async () => (await app.stop(), await rm(dir, { recursive: true, force: true })),
  };
}

export async function distributed(workers: number, extra: Record<string, string> = {}): Promise<Stack> {
  const s3 = await startS3();
  const db = await createTestDatabase();
  const dirs = await Promise.all(Array.from({ length: workers + 1 }, () => mkdtemp(path.join(os.tmpdir(), 'markless-bench-'))));
  const env = {
    MODE: 'distributed',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    COMMIT: 'bench',
    DATABASE_URL: db.url,
    REDIS_URL,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_BUCKET: uniqueName('bench-'),
    QUEUE_NAME: uniqueName('bq'),
    REDIS_PREFIX: uniqueName('b'),
    WORKER_CONCURRENCY: '1',
    ...extra,
  };
  const app = await start({ ...env, PORT: '0', DATA_DIR: dirs[0]!, LOG_LEVEL: 'silent' });
  const children: Child[] = dirs.slice(1).map((d) => spawnEntry('workers/src/main.ts', { ...env, DATA_DIR: d }));
  for (const w of children) await until(async () => w.output().includes('worker ready'), 120_000, 200);
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db: app.container.db,
    pids: children.map((w) => w.proc.pid!),
    async stop() {
      for (const w of children) w.proc.kill('SIGTERM');
      await Promise.all(children.map((w) => w.exited));
      await app.stop();
      await s3.close();
      await db.drop();
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}
