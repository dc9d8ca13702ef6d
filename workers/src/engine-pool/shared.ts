/**
 * One engine pool for several job hosts (embedded mode, JOB_HOSTS > 1). The pool lives in an
 * engine thread of its own (workers/src/host/engine-thread.ts); each job host reaches it through a
 * MessagePort, with the same interface as a pool of its own. So the hosts' photos batch together
 * and the engine threads, ONNX (and CUDA) sessions are the process's ENGINE_POOL_SIZE, not one set
 * per host. Each call carries the caller's lane; errors keep their class (wire.ts).
 */
import type { MessagePort } from 'node:worker_threads';
import type { DescribeOptions, Descriptor } from '../vision/engine.js';
import { currentLane, reviveDescriptor, withLane, type EnginePool, type Lane, type PoolSettings, type PoolStats } from './index.js';
import { fromWire, toWire, type WireError } from './wire.js';

type Op = 'describe' | 'runJob' | 'verify' | 'detect' | 'detectLooks' | 'motion';
interface Call {
  id: number;
  op: Op;
  lane: Lane;
  args: unknown[];
}
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };
type Answer = Reply & { stats: PoolStats };

/** Answer a job host's calls on `port` from `pool`, in the caller's lane; `served` counts them. */
export function serveEnginePool(pool: EnginePool, port: MessagePort, served?: (op: Op) => void): void {
  const run = (m: Call): Promise<unknown> => {
    const a = m.args as [never, never, never, never];
    switch (m.op) {
      case 'describe':
        return pool.describe(a[0], a[1]);
      case 'runJob':
        return pool.runJob(a[0], a[1]);
      case 'verify':
        return pool.verify(a[0], a[1], a[2], a[3]);
      case 'detect':
        return pool.detect(a[0], a[1]);
      case 'detectLooks':
        return pool.detectLooks(a[0], a[1], a[2]);
      case 'motion':
        return pool.motion(a[0], a[1], a[2]);
    }
  };
  port.on('message', (m: Call) => {
    const answer = (x: Reply) => port.postMessage({ ...x, stats: pool.stats() } satisfies Answer);
    withLane(m.lane, () => run(m))
      .then(
        (value) => answer({ id: m.id, ok: true, value }),
        (err: unknown) => answer({ id: m.id, ok: false, error: toWire(err) }),
      )
      // A value that cannot be posted is answered as the error it raised.
      .catch((err: unknown) => answer({ id: m.id, ok: false, error: toWire(err) }))
      .catch(() => {});
    served?.(m.op);
  });
}

/**
 * The pool a job host holds when the hosts share one: calls go to the engine thread through the
 * port given to `connect` (again after the engine thread restarts). Calls made while no engine
 * thread is connected wait for one; calls in flight when it dies fail (the queue retries the job).
 */
export function remoteEnginePool(settings: PoolSettings): { pool: EnginePool; connect(port: MessagePort): void } {
  let port: MessagePort | null = null;
  let connected!: () => void;
  let ready = new Promise<void>((r) => (connected = r));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  let closed = false;
  let last: PoolStats = { waiting: { interactive: 0, bulk: 0 }, busy: 0, size: settings.size, batches: 0, photos: 0 };

  function connect(p: MessagePort): void {
    port = p;
    p.on('message', (a: Answer) => {
      last = a.stats;
      const q = pending.get(a.id);
      pending.delete(a.id);
      if (!q) return;
      if (a.ok) q.resolve(a.value);
      else q.reject(fromWire(a.error));
    });
    p.on('close', () => {
      if (port !== p) return;
      port = null;
      ready = new Promise<void>((r) => (connected = r));
      const err = new Error('the engine thread exited');
      for (const q of pending.values()) q.reject(err);
      pending.clear();
    });
    // The host thread lives for its jobs, not for this port.
    p.unref();
    connected();
  }

  async function call<T>(op: Op, args: unknown[]): Promise<T> {
    const lane = currentLane();
    for (;;) {
      if (closed) throw new Error('the engine pool is closed');
      if (port) break;
      await ready;
    }
    const id = next++;
    const p = port;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      p.postMessage({ id, op, lane, args } satisfies Call);
    });
  }

  const describe = async (bytes: Uint8Array, opts: DescribeOptions) => reviveDescriptor(await call<Descriptor>('describe', [bytes, opts]));
  const pool: EnginePool = {
    settings,
    describe,
    describeMany: (items) => Promise.all(items.map((i) => describe(i.bytes, i.opts).catch((err: unknown) => err as Error))),
    runJob: (name, payload) => call('runJob', [name, payload]),
    verify: (query, gallery, ids, s) => call('verify', [query, gallery, ids, s]),
    detect: (img, opts) => call('detect', [img, opts]),
    detectLooks: (img, opts, views) => call('detectLooks', [img, opts, views]),
    motion: (prev, cur, boxes) => call('motion', [prev, cur, boxes.map((b) => ({ ...b }))]),
    stats: () => last,
    async close() {
      closed = true;
      connected();
    },
  };
  return { pool, connect };
}
