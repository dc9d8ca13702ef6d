/**
 * One job host thread of embedded mode (JOB_HOSTS of them, started by
 * shared/src/jobs/thread-host.ts): builds the job handlers, then runs each job the main thread
 * hands over. The database, queue and metrics are the main thread's, reached over messages
 * (remote.ts); blobs, indexes and models are opened here. A lone host builds its own engine pool;
 * several hosts share the engine thread's pool through a MessagePort (engine-pool/shared.ts).
 * Host 0 keeps its indexes under DATA_DIR/index as one host always did; host i > 0 under
 * DATA_DIR/index/host-i, so no two threads write one index file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../shared/src/config/config.js';
import { createContainer } from '../../../shared/src/container.js';
import type { JobName } from '../../../shared/src/domain/jobs.js';
import { createLogger } from '../../../shared/src/logger.js';
import { withTrace } from '../../../shared/src/observability/context.js';
import { toWire } from '../../../shared/src/jobs/host-protocol.js';
import { poolSettings, useSharedEnginePool } from '../engine-pool/index.js';
import { remoteEnginePool } from '../engine-pool/shared.js';
import { createHandlers, scheduleReindexIfNeeded } from '../handlers/index.js';
import { boot, env, onMain, post, remoteDb, remoteMetrics, remoteQueue } from './remote.js';

/** Which host this thread is (0 … JOB_HOSTS − 1). */
const hostIndex = Number(env.MARKLESS_JOB_HOST_INDEX ?? 0);

// Several hosts: the engine thread's pool, reached through the port each `engine` message brings.
const shared = boot.engine ? remoteEnginePool({ ...poolSettings(env), ...boot.engine }) : null;
if (shared) useSharedEnginePool(shared.pool);

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

// Jobs come only after `ready`.
let jobs: { handlers: Awaited<ReturnType<typeof createHandlers>>; close: () => Promise<void> } | null = null;
onMain((m) => {
  if (m.t === 'job') {
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
  } else if (m.t === 'engine') {
    shared?.connect(m.port);
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
