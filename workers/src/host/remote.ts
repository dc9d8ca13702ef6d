/**
 * What a thread started by shared/src/jobs/thread-host.ts (a job host, or the engine thread of
 * several hosts) reaches on the main thread over messages: the database (PGlite lives there), the
 * queue and the metrics. Replies are routed here; every other message goes to `onMain`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Metrics } from '../../../shared/src/observability/metrics.js';
import type { Database, Queryable, QueryResult } from '../../../shared/src/ports/database.port.js';
import type { JobQueue } from '../../../shared/src/ports/queue.port.js';
import { fromWire, type HostMessage, type MainMessage } from '../../../shared/src/jobs/host-protocol.js';

const port = parentPort!;
export const boot = workerData as {
  env: NodeJS.ProcessEnv;
  role?: 'host' | 'engine';
  /** Job hosts sharing one engine pool: the pool's settings (its port comes with `attach` messages). */
  engine?: { size: number; batchSize: number; lingerMs: number; ortThreads: number };
};
export const env = boot.env;
export const post = (m: HostMessage) => port.postMessage(m);

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

type Other = Exclude<MainMessage, { t: 'reply' }>;
let handler: ((m: Other) => void) | null = null;
const early: Other[] = [];
/** Where the main thread's messages other than replies go (those that came before are handed over now). */
export function onMain(fn: (m: Other) => void): void {
  handler = fn;
  for (const m of early.splice(0)) fn(m);
}
// Replies are needed while the thread is still being built (its database reads).
port.on('message', (m: MainMessage) => {
  if (m.t === 'reply') {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.ok) p?.resolve(m.value);
    else p?.reject(fromWire(m.error));
  } else if (handler) handler(m);
  else early.push(m);
});

// bytea comes back as a Buffer from both adapters; structured clone hands over a Uint8Array.
function revive<T>(r: QueryResult<T>): QueryResult<T> {
  for (const row of r.rows as Record<string, unknown>[]) {
    for (const [k, v] of Object.entries(row))
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return r;
}

let nextTx = 1;
export const remoteDb: Database = {
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

export const remoteQueue = {
  kind: 'inprocess',
  enqueue: (...args: unknown[]) => call({ t: 'queue', method: 'enqueue', args }),
  get: (...args: unknown[]) => call({ t: 'queue', method: 'get', args }),
  waitFor: (...args: unknown[]) => call({ t: 'queue', method: 'waitFor', args }),
  startWorker: () => Promise.reject(new Error('the job host takes its jobs from the main thread')),
  close: async () => {},
  admin: new Proxy({}, { get: () => () => Promise.reject(new Error('queue administration happens on the main thread')) }),
} as unknown as JobQueue;

// Every metric call is replayed on the main thread's registry, which /metrics serves.
export const remoteMetrics = new Proxy(
  {},
  {
    get: (_t, method) => (method === 'watchQueue' ? () => {} : (...args: unknown[]) => post({ t: 'metric', method: String(method), args })),
  },
) as Metrics;
