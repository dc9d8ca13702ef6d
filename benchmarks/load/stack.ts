import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startS3, type TestS3 } from '../../test/support/s3.js';
import { createTestDatabase, REDIS_URL, uniqueName } from '../../test/support/postgres.js';
import { freePort, spawnEntry, until, type Child } from '../../test/support/process.js';

/** One deployment under test: an API process (and worker processes when distributed) on loopback. */
export interface Stack {
  url: string;
  label: string;
  stop(): Promise<void>;
}

const ready = (port: number) => until(async () => (await fetch(`http://127.0.0.1:${port}/ready`)).ok, 240_000, 250);

/**
 * Start `api/src/main.ts` (and `workers` worker processes) as real separate processes. Embedded:
 * PGlite and files in a temp folder, jobs in the API process. Distributed: a fresh database on
 * the machine's PostgreSQL, BullMQ on its Redis under a unique prefix, an s3rver bucket.
 */
export async function startStack(mode: 'embedded' | 'distributed', workers: number, extra: Record<string, string>): Promise<Stack> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-load-'));
  const [port, metricsPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    MODE: mode,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    COMMIT: 'bench',
    ...extra,
  };
  let s3: TestS3 | undefined;
  let drop: (() => Promise<void>) | undefined;
  if (mode === 'distributed') {
    s3 = await startS3();
    const db = await createTestDatabase();
    drop = db.drop;
    Object.assign(env, {
      DATABASE_URL: db.url,
      REDIS_URL,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_BUCKET: uniqueName('bench-'),
      QUEUE_NAME: uniqueName('load'),
      REDIS_PREFIX: uniqueName('bench'),
    });
  }
  const children: Child[] = [spawnEntry('api/src/main.ts', env)];
  await ready(metricsPort);
  for (let i = 0; i < workers; i++) {
    const wPort = await freePort();
    children.push(spawnEntry('workers/src/main.ts', { ...env, PORT: '0', METRICS_PORT: String(wPort) }));
    await ready(wPort);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    label: mode === 'embedded' ? 'embedded' : `distributed, ${workers} worker${workers > 1 ? 's' : ''}`,
    async stop() {
      for (const c of children) c.proc.kill('SIGTERM');
      await Promise.race([Promise.all(children.map((c) => c.exited)), new Promise((r) => setTimeout(r, 30_000))]);
      for (const c of children) c.proc.kill('SIGKILL');
      await s3?.close();
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
