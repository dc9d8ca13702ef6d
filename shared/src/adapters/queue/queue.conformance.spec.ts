import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUES } from '../../domain/queues.js';
import { afterAll, describe } from 'vitest';
import { createTestDatabase, REDIS_URL, uniqueName } from '../../../../test/support/postgres.js';
import { queueConformance } from '../../ports/conformance/queue.conformance.js';
import type { QueueAdapterFactory } from '../../ports/conformance/queue-harness.js';
import type { Database } from '../../ports/database.port.js';
import { migrate } from '../db/migrate.js';
import { createPgliteDatabase } from '../db/pglite.adapter.js';
import { createPostgresDatabase } from '../db/postgres.adapter.js';
import { createBullQueue, redisConnection } from './bullmq.adapter.js';
import { createInProcessQueue } from './inprocess.adapter.js';

// Fast retries and polling, so retry tests take milliseconds.
const BACKOFF_MS = 50;

/** Where the in-process queue keeps its rows: opened again after a simulated crash. */
interface JobsStore {
  open(): Promise<Database>;
  destroy(): Promise<void>;
}

const pgliteStore = async (): Promise<JobsStore> => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-queue-'));
  return { open: () => createPgliteDatabase(dir), destroy: () => rm(dir, { recursive: true, force: true }) };
};

const postgresStore = async (): Promise<JobsStore> => {
  const { url, drop } = await createTestDatabase();
  return { open: () => createPostgresDatabase(url, 4), destroy: drop };
};

/**
 * The in-process queue on a database. Opening PGlite costs seconds, so the suite shares one
 * store and each namespace starts from an empty jobs table.
 */
function inProcessAdapter(makeStore: () => Promise<JobsStore>): QueueAdapterFactory & { dispose(): Promise<void> } {
  let store: JobsStore | undefined;
  let db: Database | undefined;
  return {
    splitApiAndWorker: false,
    async namespace() {
      store ??= await makeStore();
      if (!db) {
        db = await store.open();
        await migrate(db);
      }
      await db.query('delete from jobs');
      return {
        open: async (o = {}) =>
          createInProcessQueue(db!, {
            ...o,
            concurrency: o.concurrency ?? 1,
            attempts: o.attempts ?? 3,
            backoffMs: BACKOFF_MS,
            pollMs: BACKOFF_MS,
          }),
        async crashWhileActive(id) {
          // What the queue's own claim does, by a process that then dies before finishing.
          const r = await db!.query(`update jobs set state = 'active', attempts = attempts + 1 where id = $1 and state = 'waiting'`, [id]);
          if (r.affectedRows !== 1) throw new Error(`job ${id} was not waiting`);
          await db!.close();
          db = await store!.open();
        },
        destroy: async () => undefined,
      };
    },
    async dispose() {
      await db?.close();
      await store?.destroy();
    },
  };
}

/** BullMQ on the machine's Redis, one fresh queue name per namespace, removed afterwards. */
function bullAdapter(): QueueAdapterFactory & { dispose(): Promise<void> } {
  const connection = redisConnection(REDIS_URL);
  return {
    splitApiAndWorker: true,
    async namespace() {
      const name = uniqueName('conf-q-');
      return {
        open: async (o = {}) =>
          createBullQueue({
            ...o,
            redisUrl: REDIS_URL,
            name,
            steerPollMs: 200,
            concurrency: o.concurrency ?? 1,
            attempts: o.attempts ?? 3,
            backoffMs: BACKOFF_MS,
            // Short locks, so a dead worker's job is noticed within about two seconds.
            stalledMs: 1000,
          }),
        async crashWhileActive(id) {
          // A worker that takes the job and then never renews its lock nor finishes: a killed process.
          const dead = new Worker(`${name}-reindex`, null, { connection, lockDuration: 1000, autorun: false });
          const job = await dead.getNextJob('dead-worker-token');
          if (job?.id !== id) throw new Error(`dead worker took ${job?.id}, not ${id}`);
          await dead.close(true);
        },
        async destroy() {
          for (const kind of QUEUES) {
            const q = new Queue(`${name}-${kind}`, { connection });
            await q.obliterate({ force: true });
            await q.close();
          }
          // The quota sets and the steering hash of this namespace.
          const r = new Redis(REDIS_URL);
          const keys = await r.keys(`bull:${name}:*`);
          if (keys.length) await r.del(...keys);
          r.disconnect();
        },
      };
    },
    dispose: async () => undefined,
  };
}

const adapters = [
  { name: 'in-process (PGlite)', factory: inProcessAdapter(pgliteStore) },
  // Embedded mode with DATABASE_URL set runs the in-process queue on a PostgreSQL server.
  { name: 'in-process (PostgreSQL server)', factory: inProcessAdapter(postgresStore) },
  { name: 'BullMQ (Redis)', factory: bullAdapter() },
];

afterAll(async () => {
  for (const a of adapters) await a.factory.dispose();
});

describe.each(adapters)('JobQueue conformance: $name', ({ factory }) => {
  queueConformance(factory);
});
