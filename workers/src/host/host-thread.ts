/**
 * One job host thread of embedded mode (JOB_HOSTS of them, started by
 * shared/src/jobs/thread-host.ts): builds the job handlers with their engine pool (its share of
 * ENGINE_POOL_SIZE), then runs each job the main thread hands over. The database, queue and
 * metrics are the main thread's, reached over messages; blobs, indexes and models are opened here.
 * Host 0 keeps its indexes under DATA_DIR/index as one host always did; host i > 0 under
 * DATA_DIR/index/host-i, so no two threads write one index file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../../../shared/src/config/config.js';
import { createContainer } from '../../../shared/src/container.js';
import type { JobName } from '../../../shared/src/domain/jobs.js';
import { createLogger } from '../../../shared/src/logger.js';
import { withTrace } from '../../../shared/src/observability/context.js';
import type { Metrics } from '../../../shared/src/observability/metrics.js';
import type { Database, Queryable, QueryResult } from '../../../shared/src/ports/database.port.js';
import type { JobQueue } from '../../../shared/src/ports/queue.port.js';
import { fromWire, toWire, type HostMessage, type MainMessage } from '../../../shared/src/jobs/host-protocol.js';
import { createHandlers, scheduleReindexIfNeeded } from '../handlers/index.js';

const port = parentPort!;
const env = (workerData as { env: NodeJS.ProcessEnv }).env;
/** Which host this thread is (0 … JOB_HOSTS − 1). */
const hostIndex = Number(env.MARKLESS_JOB_HOST_INDEX ?? 0);
const post = (m: HostMessage) => port.postMessage(m);
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextCall = 1;
function call<T>(m: DistributiveOmit<Extract<HostMessage, { id: number }>, 'id'>): Promise<T> {
  const id = nextCall++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    post({ ...m, id } as HostMessage);
  });
}
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

// bytea comes back as a Buffer from both adapters; structured clone hands over a Uint8Array.
function revive<T>(r: QueryResult<T>): QueryResult<T> {
  for (const row of r.rows as Record<string, unknown>[]) {
    for (const [k, v] of Object.entries(row))
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return r;
}

let nextTx = 1;
const remoteDb: Database = {
  kind: 'pglite',
  query: async <T>(sql: string, params?: readonly unknown[]) =>
    revive(await call<QueryResult<T>>({ t: 'db', op: 'query', sql, params: params ? [...params] : undefined })),
  exec: (sql) => call({ t: 'db', op: 'exec', sql }),
  async transaction(fn) {
    const tx = nextTx++;
    await call({ t: 'db', op: 'begin', tx });
    const handle: Queryable = {
      query: async <T>(sql: string, params?: readonly unknown[]) =>
        revive(await call<QueryResult<T>>({ t: 'db', op: 'query', tx, sql, params: params ? [...params] : undefined })),
    };
    let result;
    try {
      result = await fn(handle);
    } catch (err) {
      await call({ t: 'db', op: 'rollback', tx }).catch(() => {});
      throw err;
    }
    await call({ t: 'db', op: 'commit', tx });
    return result;
  },
  close: async () => {},
};

const remoteQueue = {
  kind: 'inprocess',
  enqueue: (...args: unknown[]) => call({ t: 'queue', method: 'enqueue', args }),
  get: (...args: unknown[]) => call({ t: 'queue', method: 'get', args }),
  waitFor: (...args: unknown[]) => call({ t: 'queue', method: 'waitFor', args }),
  startWorker: () => Promise.reject(new Error('the job host takes its jobs from the main thread')),
  close: async () => {},
  admin: new Proxy({}, { get: () => () => Promise.reject(new Error('queue administration happens on the main thread')) }),
} as unknown as JobQueue;

// Every metric call is replayed on the main thread's registry, which /metrics serves.
const remoteMetrics = new Proxy(
  {},
  {
    get: (_t, method) => (method === 'watchQueue' ? () => {} : (...args: unknown[]) => post({ t: 'metric', method: String(method), args })),
  },
) as Metrics;

/**
 * Test hook (MARKLESS_TEST_HOLD_JOBS_UNTIL=<file>): every job first spins this thread, without
 * yielding, until the file exists: a deliberately slow handler, to show that the API still answers.
 */
function holdIfAsked(): void {
  const file = env.MARKLESS_TEST_HOLD_JOBS_UNTIL;
  if (!file) return;
  while (!existsSync(file)) {
    const until = Date.now() + 20;
    while (Date.now() < until) {
      /* spin: the point is to hold the thread */
    }
  }
}

// Replies are needed while the handlers are still being built (their database reads); jobs come only after `ready`.
let jobs: { handlers: Awaited<ReturnType<typeof createHandlers>>; close: () => Promise<void> } | null = null;
port.on('message', (m: MainMessage) => {
  if (m.t === 'reply') {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.ok) p?.resolve(m.value);
    else p?.reject(fromWire(m.error));
  } else if (m.t === 'job') {
    // Posted before any hold below: the main thread learns the job began even if this thread then spins.
    post({ t: 'started', id: m.id });
    const run = async () => {
      holdIfAsked();
      crashIfAsked();
      const h = jobs!.handlers[m.name as JobName] as (d: unknown, ctx: { id: string; attempt: number }) => Promise<Record<string, unknown>>;
      const result = await h(m.data, m.ctx);
      killIfAsked(m.name);
      return result;
    };
    withTrace(m.trace, run).then(
      (result) => post({ t: 'done', id: m.id, ok: true, result: result ?? {} }),
      (err) => post({ t: 'done', id: m.id, ok: false, error: toWire(err) }),
    );
  } else if (m.t === 'close') {
    void (jobs?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  }
});

/**
 * Test hook (MARKLESS_TEST_CRASH_HOST_ONCE=<file>): the first job, while the file does not exist,
 * creates it and throws outside any promise, as a bug in a handler's background work would: the
 * thread dies, and the main thread must fail the job (to be retried) and start a new host.
 */
function crashIfAsked(): void {
  const file = env.MARKLESS_TEST_CRASH_HOST_ONCE;
  if (!file || existsSync(file) || !claimOnce(file)) return;
  setImmediate(() => {
    throw new Error('deliberate job host crash (MARKLESS_TEST_CRASH_HOST_ONCE)');
  });
}

/**
 * Test hook (MARKLESS_TEST_KILL_HOST_AFTER_JOB=<file>, optionally MARKLESS_TEST_KILL_HOST_ON=<job
 * name>): the first such job to finish its handler, while the file does not exist, creates it and
 * ends this thread at once, before answering: its writes are committed, its answer is lost. The
 * queue must retry it on a host (the job is idempotent: nothing stored twice) and the host restart.
 */
function killIfAsked(name: string): void {
  const file = env.MARKLESS_TEST_KILL_HOST_AFTER_JOB;
  if (!file || (env.MARKLESS_TEST_KILL_HOST_ON && env.MARKLESS_TEST_KILL_HOST_ON !== name)) return;
  if (existsSync(file) || !claimOnce(file)) return;
  // In a worker thread, process.exit ends this thread only.
  process.exit(1);
}

/** Create `file` if no one has (exclusive create: of several host threads, one wins). */
function claimOnce(file: string): boolean {
  try {
    writeFileSync(file, String(hostIndex), { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

async function main() {
  const loaded = loadConfig(env);
  const config = hostIndex > 0 ? { ...loaded, indexDir: join(loaded.indexDir, `host-${hostIndex}`) } : loaded;
  const logger = createLogger(config.LOG_LEVEL).child({ host: hostIndex });
  const c = await createContainer(config, {
    logger,
    queue: remoteQueue,
    metrics: remoteMetrics,
    ...(config.DATABASE_URL ? {} : { db: remoteDb }),
  });
  const handlers = await createHandlers(c);
  jobs = { handlers, close: () => c.close() };
  post({ t: 'ready' });
  // After ready: the reindex job goes through the main thread's queue like any other; one host asks.
  if (hostIndex === 0) await scheduleReindexIfNeeded(c).catch((err) => logger.error({ err }, 'could not schedule re-embedding'));
}

main().catch((err) => post({ t: 'failed', error: String((err as Error)?.stack ?? err) }));
