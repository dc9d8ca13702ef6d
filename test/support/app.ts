import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { start } from '../../api/src/main.js';
import { loadConfig } from '../../shared/src/config/config.js';
import { createContainer, type Container } from '../../shared/src/container.js';
import { createLogger } from '../../shared/src/logger.js';
import { createHandlers } from '../../workers/src/handlers/index.js';
import { startS3, type TestS3 } from './s3.js';
import { createTestDatabase, REDIS_URL, uniqueName } from './postgres.js';
import { seedPgliteDataDir } from './template.js';

export type Mode = 'embedded' | 'distributed';

export interface TestApp {
  url: string;
  mode: Mode;
  env: Record<string, string>;
  container: Container;
  /** The worker's own container in distributed mode (a separate set of connections, like a separate process). */
  worker?: Container;
  stop(): Promise<void>;
}

/**
 * What distributed mode talks to, fresh for one app: a new PostgreSQL database, unique Redis
 * queue names and an s3rver bucket. `env` holds the settings; `drop` and `s3.close` undo it.
 */
export async function distributedBackends(): Promise<{ env: Record<string, string>; s3: TestS3; drop: () => Promise<void> }> {
  const s3 = await startS3();
  const db = await createTestDatabase({ migrated: true });
  return {
    s3,
    drop: db.drop,
    env: {
      DATABASE_URL: db.url,
      REDIS_URL,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_BUCKET: uniqueName('bucket-'),
      QUEUE_NAME: uniqueName('q'),
      REDIS_PREFIX: uniqueName('t'),
    },
  };
}

/**
 * The environment of an app in `mode`: `base`, then, distributed, its own backends
 * (distributedBackends), then `extra` over both; `release` closes those backends. An app on
 * PGlite whose data folder has no database yet gets a migrated one copied in (template.ts).
 */
export async function modeEnv(
  mode: Mode,
  base: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; release: () => Promise<void> }> {
  const env = { ...base };
  let release = async (): Promise<void> => {};
  if (mode === 'distributed') {
    const d = await distributedBackends();
    Object.assign(env, d.env);
    release = async () => {
      await d.s3.close();
      await d.drop();
    };
  }
  Object.assign(env, extra);
  if (!env.DATABASE_URL && env.DATA_DIR) await seedPgliteDataDir(env.DATA_DIR);
  return { env, release };
}

/**
 * Which recognition engine a test app runs: `real` (the default: the ONNX models, keypoints and
 * verification) or `deterministic` (workers/src/vision/testing/deterministic-engine.ts: a hash of
 * the pixels as the embedding, no keypoints), for stories whose assertions do not depend on
 * recognition. Every recognition, enrolment, video, survey, learning and batch story keeps `real`.
 */
export type TestEngine = 'real' | 'deterministic';

/** The environment that selects `engine` (MARKLESS_TEST_ENGINE; the configuration refuses it outside vitest). */
export function engineEnv(engine: TestEngine = 'real'): Record<string, string> {
  return engine === 'deterministic' ? { MARKLESS_TEST_ENGINE: 'deterministic' } : {};
}

/**
 * Start the real service on a free port. Embedded: PGlite and files in a temp folder, jobs in
 * process. Distributed: a fresh database on the machine's PostgreSQL, BullMQ on its Redis, an
 * s3rver bucket, and a worker with its own connections.
 */
export async function startTestApp(
  opts: { mode?: Mode; env?: Record<string, string>; worker?: boolean; dataDir?: string; engine?: TestEngine } = {},
): Promise<TestApp> {
  const mode = opts.mode ?? 'embedded';
  // A caller-given data folder outlives this app (restart tests); one we make is removed at stop.
  // The learning loop stays off unless a test turns it on (LEARN_AFTER_NEW): a training job
  // started behind another test's back would share its queues and its two cores.
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'markless-test-')));
  const { env, release } = await modeEnv(
    mode,
    { MODE: mode, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', COMMIT: 'test', LEARN_AFTER_NEW: '0' },
    { ...engineEnv(opts.engine), ...opts.env },
  );
  const app = await start(env);
  let worker: Container | undefined;
  if (mode === 'distributed' && opts.worker !== false) {
    worker = await createContainer(loadConfig(env), { logger: createLogger('silent') });
    await worker.queue.startWorker(await createHandlers(worker));
  }
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    mode,
    env,
    container: app.container,
    worker,
    async stop() {
      await app.stop();
      await worker?.close();
      await release();
      if (ownDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON request helper: returns status, headers and parsed body. */
export async function api(
  base: string,
  method: string,
  p: string,
  opts: {
    token?: string;
    json?: unknown;
    form?: Record<string, string>;
    body?: RequestInit['body'];
    headers?: Record<string, string>;
  } = {},
) {
  // Error bodies carry the request id; a fixed one keeps "not yours" and "missing" byte-comparable.
  const headers: Record<string, string> = { 'x-request-id': 'test-request-id', ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: RequestInit['body'] = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(base + p, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Sign up a fresh account and return its token. */
export async function signup(base: string, prefix = 'user'): Promise<{ token: string; username: string; id: string }> {
  const username = uniqueName(`${prefix}_`);
  const r = await api(base, 'POST', '/api/signup', { json: { username, password: 'Bark-and-peel-42' } });
  if (r.status !== 200) throw new Error(`signup failed: ${r.status} ${r.text}`);
  return { token: r.json.token, username, id: r.json.account.id };
}
