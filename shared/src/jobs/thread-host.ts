/**
 * Embedded mode's job hosts: the job handlers and the engine pool run in worker threads of their
 * own, so the API's event loop only answers requests (issue 22), and there are several of them
 * (`JOB_HOSTS`, issue 42), so one job's own work (ranking, verification bookkeeping, database
 * round trips) never holds another's. The API never imports worker code: each thread is started
 * from its file, and talks back over messages for the database (PGlite lives in this thread), the
 * queue and the metrics.
 *
 *   main thread: HTTP, the queue (jobs table), the database, /metrics, handing each job to one host
 *   host threads (JOB_HOSTS): job handlers, indexes, identify and ranking
 *   engine pool (ENGINE_POOL_SIZE piscina threads): decode, detect, embed, keypoint verification.
 *     One host builds it itself, as it always did. Several share one: it lives in an engine thread
 *     started first, and each host reaches it through a MessagePort of its own
 *     (workers/src/engine-pool/shared.ts), so photos of all hosts batch together and the process
 *     keeps one set of ONNX (CUDA) sessions.
 */
import os from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Container } from '../container.js';
import type { Queryable } from '../ports/database.port.js';
import { jobNames, type JobHandlers } from '../domain/jobs.js';
import { currentTrace } from '../observability/context.js';
import { fromWire, toWire, type EngineSettings, type HostMessage, type MainMessage } from './host-protocol.js';

/** The host thread's entry, by file: a URL is not an import, so no worker module enters the API's graph. */
const HOST_ENTRY = new URL('../../../workers/src/host/boot.mjs', import.meta.url);

/** What one host thread is doing, for operators and tests. */
export interface JobHostStats {
  /** 0 … JOB_HOSTS − 1. */
  index: number;
  /** The current thread's id (a restarted host has a new one). */
  threadId: number;
  alive: boolean;
  /** Jobs handed to this host and not yet answered. */
  inFlight: number;
  /** Jobs the host thread reported it has begun and not yet finished. */
  running: number;
  /** Jobs answered (completed or failed by their handler). */
  answered: number;
  /** Jobs lost because the thread died under them (the queue retries them). */
  lost: number;
  /** Times the thread was started again after dying. */
  restarts: number;
  /** Calls the shared engine pool answered for this host (0 with one host: its pool is its own). */
  engineCalls: number;
  /** Its share of FEATURE_CACHE_MB. */
  featureCacheMb: number;
}

/** The engine thread of several hosts. */
export interface EngineThreadStats {
  threadId: number;
  alive: boolean;
  restarts: number;
  /** The pool's settings as the engine thread reported them. */
  settings: EngineSettings | null;
}

/** One step of one job on one host, in the order the main thread saw them (the last 10,000). */
export interface JobHostEvent {
  seq: number;
  host: number;
  /** The queue's job id. */
  job: string;
  name: string;
  /** The job's owner, when its data names one. */
  owner?: string;
  attempt: number;
  event: 'sent' | 'started' | 'completed' | 'failed' | 'lost';
}

export interface JobHost {
  /** One handler per job name; each job goes to exactly one host thread. */
  handlers: JobHandlers;
  /** Number of host threads. */
  readonly size: number;
  stats(): JobHostStats[];
  /** The engine thread holding the one pool the hosts share; null with one host (it holds its own). */
  engine(): EngineThreadStats | null;
  events(): readonly JobHostEvent[];
  close(): Promise<void>;
}

const hostsOf = new WeakMap<Container, JobHost>();
/** The job hosts started for `c` (embedded mode), if any: for /metrics-like views and tests. */
export const jobHostOf = (c: Container): JobHost | undefined => hostsOf.get(c);

/**
 * How many job-host threads: JOB_HOSTS, else 2 from 4 cores up, else 1. Below 4 cores the models,
 * not the job host, are the limit: a second host brought nothing on 2 cores
 * (benchmarks/results/batch-job-hosts-2026-11-28.json).
 */
export function jobHostCount(configured: number | undefined, cores = os.availableParallelism()): number {
  return configured ?? (cores >= 4 ? 2 : 1);
}

/** FEATURE_CACHE_MB shared out between the hosts (each keeps the features its own jobs read). */
export const featureCacheShare = (hosts: number, mb: number): number => Math.floor(mb / hosts);

interface Pending {
  resolve: (r: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  job: string;
  name: string;
  owner?: string;
  attempt: number;
  started: boolean;
}

interface Host {
  /** 0 … JOB_HOSTS − 1; -1 for the engine thread. */
  index: number;
  env: NodeJS.ProcessEnv;
  worker: Worker | null;
  alive: boolean;
  /** The current start (or restart) of the thread. */
  current: Promise<void>;
  jobs: Map<number, Pending>;
  // Open transactions of the host, each held open by a promise the host's commit or rollback settles.
  txs: Map<number, { tx: Queryable; end: (commit: boolean) => void; done: Promise<unknown> }>;
  answered: number;
  lost: number;
  restarts: number;
  /** When it was last handed a job, to break ties between equally busy hosts. */
  lastSent: number;
  /** Restarts in a row that failed to start (the next waits longer). */
  failedStarts: number;
  engineCalls: number;
  /** The engine thread only: its pool's settings, from its `ready`. */
  settings: EngineSettings | null;
}

/**
 * Start JOB_HOSTS host threads (and, for more than one, first the engine thread holding the pool
 * they share); resolves once every one has built its handlers (models loaded).
 * The queue hands each job to one handler call, and that call to the host with the fewest jobs in
 * hand. A host thread that dies (an uncaught error in a handler's background work, or killed) fails
 * the jobs it held, which the queue retries (on any live host), rolls back its open transactions,
 * and is started again; the other hosts go on meanwhile.
 */
export async function startJobHost(c: Container, env: NodeJS.ProcessEnv): Promise<JobHost> {
  const n = jobHostCount(c.config.JOB_HOSTS);
  let nextJob = 1;
  let seq = 0;
  let closing = false;
  let started = false;
  const log: JobHostEvent[] = [];
  const note = (h: Host, p: Pending, event: JobHostEvent['event']) => {
    log.push({ seq: ++seq, host: h.index, job: p.job, name: p.name, owner: p.owner, attempt: p.attempt, event });
    if (log.length > 10_000) log.splice(0, log.length - 10_000);
  };

  const thread = (index: number, threadEnv: NodeJS.ProcessEnv): Host => ({
    index,
    env: threadEnv,
    worker: null,
    alive: false,
    current: Promise.resolve(),
    jobs: new Map(),
    txs: new Map(),
    answered: 0,
    lost: 0,
    restarts: 0,
    lastSent: 0,
    failedStarts: 0,
    engineCalls: 0,
    settings: null,
  });
  // Several hosts share one engine pool, in a thread of its own with the whole ENGINE_POOL_SIZE.
  const engine = n > 1 ? thread(-1, env) : null;
  const hosts: Host[] = Array.from({ length: n }, (_, index) =>
    thread(index, {
      ...env,
      MARKLESS_JOB_HOST_INDEX: String(index),
      MARKLESS_JOB_HOSTS: String(n),
      FEATURE_CACHE_MB: String(featureCacheShare(n, c.config.FEATURE_CACHE_MB)),
    }),
  );
  const nameOf = (h: Host) => (h === engine ? 'the engine thread' : `job host ${h.index}`);

  /** Give host `h` a port to the engine thread's pool (after either of them started again). */
  function connect(h: Host): void {
    if (!engine?.worker || !engine.alive || !h.worker) return;
    const { port1, port2 } = new MessageChannel();
    engine.worker.postMessage({ t: 'attach', host: h.index, port: port1 } satisfies MainMessage, [port1]);
    h.worker.postMessage({ t: 'engine', port: port2 } satisfies MainMessage, [port2]);
  }

  const post = (h: Host, m: MainMessage) => h.worker?.postMessage(m);
  // A value that cannot be posted (not cloneable) is answered as the error it raised; a reply that
  // cannot be posted at all is logged, never left as an unhandled rejection.
  const reply = (h: Host, id: number, p: Promise<unknown>): void => {
    p.then((value) => post(h, { t: 'reply', id, ok: true, value }))
      .catch((err: unknown) => post(h, { t: 'reply', id, ok: false, error: toWire(err) }))
      .catch((err: unknown) => c.logger.error({ err, host: h.index }, 'job host reply could not be posted'));
  };

  const spawn = (h: Host) =>
    new Promise<void>((resolve, reject) => {
      const workerData =
        h === engine ? { env: h.env, role: 'engine' } : { env: h.env, role: 'host', engine: engine ? engine.settings : undefined };
      const w = new Worker(HOST_ENTRY, { workerData, env: { ...process.env, ...h.env }, stdout: false, stderr: false });
      h.worker = w;
      if (engine && h !== engine) connect(h);
      let failure: Error | null = null;
      w.on('message', (m: HostMessage) => {
        switch (m.t) {
          case 'ready':
            h.alive = true;
            h.failedStarts = 0;
            if (h === engine) {
              h.settings = m.engine ?? null;
              // A restarted engine thread: every host gets a port to it (their old ones closed with it).
              for (const x of hosts) connect(x);
            }
            return resolve();
          case 'failed':
            failure = new Error(`${nameOf(h)} failed to start: ${m.error}`);
            reject(failure);
            // After the first start, a restart that failed is tried again (its exit schedules it).
            if (started) {
              h.failedStarts++;
              void w.terminate();
            }
            return;
          case 'served': {
            const x = hosts[m.host];
            if (x) x.engineCalls = m.calls;
            return;
          }
          case 'db':
            return reply(h, m.id, dbCall(h, m));
          case 'queue':
            return reply(h, m.id, (c.queue[m.method] as (...a: unknown[]) => Promise<unknown>)(...m.args));
          case 'metric':
            return void (c.metrics as unknown as Record<string, (...a: unknown[]) => void>)[m.method]?.(...m.args);
          case 'started': {
            const j = h.jobs.get(m.id);
            if (j && !j.started) {
              j.started = true;
              note(h, j, 'started');
            }
            return;
          }
          case 'done': {
            const j = h.jobs.get(m.id);
            h.jobs.delete(m.id);
            if (!j) return;
            h.answered++;
            note(h, j, m.ok ? 'completed' : 'failed');
            return m.ok ? j.resolve(m.result) : j.reject(fromWire(m.error));
          }
        }
      });
      w.on('error', (err) => {
        failure = err;
        c.logger.error({ err, host: h.index }, `${nameOf(h)} failed`);
      });
      w.on('exit', (code) => {
        // An old thread's exit after a new one started has nothing left to clean up.
        if (h.worker !== w) return;
        h.alive = false;
        const err = failure ?? new Error(`${nameOf(h)} exited (${code})`);
        for (const j of h.jobs.values()) {
          h.lost++;
          note(h, j, 'lost');
          j.reject(err);
        }
        h.jobs.clear();
        // A transaction the thread left open would hold PGlite for good.
        for (const t of h.txs.values()) t.end(false);
        h.txs.clear();
        reject(err);
        if (started && !closing) {
          c.logger.error({ err, host: h.index }, `${nameOf(h)} exited: starting a new one`);
          h.restarts++;
          // 1 s, then longer after each restart that failed to start (at most a minute).
          const wait = Math.min(60_000, 1000 * 2 ** h.failedStarts);
          h.current = new Promise<void>((r) => setTimeout(r, wait).unref()).then(() => (closing ? undefined : spawn(h)));
          h.current.catch((e) => c.logger.error({ err: e, host: h.index }, `${nameOf(h)} could not restart`));
        }
      });
    });

  async function dbCall(h: Host, m: Extract<HostMessage, { t: 'db' }>): Promise<unknown> {
    if (m.op === 'begin') {
      const entry = { tx: noTx, end: (_commit: boolean) => {}, done: Promise.resolve() as Promise<unknown> };
      await new Promise<void>((opened, failed) => {
        entry.done = c.db
          .transaction(async (tx) => {
            const decided = new Promise<boolean>((r) => (entry.end = r));
            entry.tx = tx;
            h.txs.set(m.tx!, entry);
            opened();
            if (!(await decided)) throw ROLLBACK;
          })
          .catch((e) => {
            if (e !== ROLLBACK) throw e;
          });
        // A transaction that could not even open fails the begin; one that fails at commit fails the commit.
        entry.done.catch(failed);
      });
      return null;
    }
    if (m.op === 'commit' || m.op === 'rollback') {
      const t = h.txs.get(m.tx!);
      h.txs.delete(m.tx!);
      if (!t) throw new Error('no such transaction');
      t.end(m.op === 'commit');
      await t.done;
      return null;
    }
    if (m.op === 'exec') return c.db.exec(m.sql!);
    const on: Queryable = m.tx !== undefined ? (h.txs.get(m.tx)?.tx ?? noTx) : c.db;
    return on.query(m.sql!, m.params);
  }

  /** The live host with the fewest jobs in hand (the one handed a job longest ago on a tie); waits for a restart when none is live. */
  async function pick(): Promise<Host> {
    for (let round = 0; round < 2; round++) {
      const live = hosts.filter((h) => h.alive);
      if (live.length)
        return live.reduce((a, b) => (b.jobs.size < a.jobs.size || (b.jobs.size === a.jobs.size && b.lastSent < a.lastSent) ? b : a));
      if (closing) break;
      // Jobs arriving while every host restarts wait for one instead of burning their retries.
      await Promise.any(hosts.map((h) => h.current)).catch(() => {});
    }
    throw new Error('no job host thread is running');
  }

  try {
    // The engine thread first: the hosts are started with its pool's settings and a port to it.
    if (engine) await (engine.current = spawn(engine));
    for (const h of hosts) h.current = spawn(h);
    await Promise.all(hosts.map((h) => h.current));
  } catch (err) {
    closing = true;
    for (const h of [...hosts, ...(engine ? [engine] : [])]) void h.worker?.terminate();
    throw err;
  }
  started = true;
  let sent = 0;
  const handlers = Object.fromEntries(
    jobNames.map((name) => [
      name,
      async (data: unknown, ctx: { id: string; attempt: number }) => {
        if (closing) throw new Error('the job host threads are closing');
        const h = await pick();
        const id = nextJob++;
        h.lastSent = ++sent;
        const owner = (data as { owner_id?: unknown } | null)?.owner_id;
        return new Promise<Record<string, unknown>>((resolve, reject) => {
          const p: Pending = { resolve, reject, job: ctx.id, name, attempt: ctx.attempt, started: false };
          if (typeof owner === 'string') p.owner = owner;
          h.jobs.set(id, p);
          note(h, p, 'sent');
          post(h, { t: 'job', id, name, data, ctx, trace: { ...currentTrace() } });
        });
      },
    ]),
  ) as unknown as JobHandlers;

  const host: JobHost = {
    handlers,
    size: n,
    stats: () =>
      hosts.map((h) => ({
        index: h.index,
        threadId: h.worker?.threadId ?? -1,
        alive: h.alive,
        inFlight: h.jobs.size,
        running: [...h.jobs.values()].filter((j) => j.started).length,
        answered: h.answered,
        lost: h.lost,
        restarts: h.restarts,
        engineCalls: h.engineCalls,
        featureCacheMb: featureCacheShare(n, c.config.FEATURE_CACHE_MB),
      })),
    engine: () =>
      engine && {
        threadId: engine.worker?.threadId ?? -1,
        alive: engine.alive,
        restarts: engine.restarts,
        settings: engine.settings,
      },
    events: () => log,
    async close() {
      closing = true;
      // The hosts first (their jobs in flight may still describe), then the engine thread.
      for (const group of [hosts, engine ? [engine] : []])
        await Promise.all(
          group.map(async (h) => {
            const w = h.worker;
            if (!w) return;
            // A thread still starting (a restart under way) has no handlers to close: stop it.
            if (!h.alive) return void (await w.terminate());
            const gone = new Promise<void>((r) => w.once('exit', () => r()));
            post(h, { t: 'close' });
            await gone;
          }),
        );
    },
  };
  hostsOf.set(c, host);
  return host;
}

const ROLLBACK = new Error('rolled back by the job host');
const noTx: Queryable = { query: () => Promise.reject(new Error('the transaction is over')) };
