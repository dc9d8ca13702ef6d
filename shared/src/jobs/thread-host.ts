/**
 * Embedded mode's job host: the job handlers and the engine pool run in a worker thread of
 * their own, so the API's event loop only answers requests (issue 22). The API never imports
 * worker code: the thread is started from its file, and talks back over messages for the
 * database (PGlite lives in this thread), the queue and the metrics.
 *
 *   main thread: HTTP, the queue (jobs table), the database, /metrics
 *   host thread: job handlers, indexes, identify/verify; its engine pool's threads: decode, detect, embed
 */
import { Worker } from 'node:worker_threads';
import type { Container } from '../container.js';
import type { Queryable } from '../ports/database.port.js';
import { jobNames, type JobHandlers } from '../domain/jobs.js';
import { currentTrace } from '../observability/context.js';
import { fromWire, toWire, type HostMessage, type MainMessage } from './host-protocol.js';

/** The host thread's entry, by file: a URL is not an import, so no worker module enters the API's graph. */
const HOST_ENTRY = new URL('../../../workers/src/host/boot.mjs', import.meta.url);

export interface JobHost {
  handlers: JobHandlers;
  close(): Promise<void>;
}

/**
 * Start the host thread; resolves once its handlers are built (models loaded). A host thread that
 * dies (an uncaught error in a handler's background work) fails the jobs it held, which the queue
 * retries, rolls back its open transactions, and is started again.
 */
export async function startJobHost(c: Container, env: NodeJS.ProcessEnv): Promise<JobHost> {
  const jobs = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  // Open transactions of the host, each held open by a promise the host's commit or rollback settles.
  const txs = new Map<number, { tx: Queryable; end: (commit: boolean) => void; done: Promise<unknown> }>();
  let nextJob = 1;
  let worker: Worker | null = null;
  let alive = false;
  let closing = false;
  let started = false;
  const post = (m: MainMessage) => worker?.postMessage(m);
  // A value that cannot be posted (not cloneable) is answered as the error it raised; a reply that
  // cannot be posted at all is logged, never left as an unhandled rejection.
  const reply = (id: number, p: Promise<unknown>): void => {
    p.then((value) => post({ t: 'reply', id, ok: true, value }))
      .catch((err: unknown) => post({ t: 'reply', id, ok: false, error: toWire(err) }))
      .catch((err: unknown) => c.logger.error({ err }, 'job host reply could not be posted'));
  };

  const spawn = () =>
    new Promise<void>((resolve, reject) => {
      const w = new Worker(HOST_ENTRY, { workerData: { env }, env: { ...process.env, ...env }, stdout: false, stderr: false });
      worker = w;
      let failure: Error | null = null;
      w.on('message', (m: HostMessage) => {
        switch (m.t) {
          case 'ready':
            alive = true;
            return resolve();
          case 'failed':
            return reject(new Error(`the job host failed to start: ${m.error}`));
          case 'db':
            return reply(m.id, dbCall(m));
          case 'queue':
            return reply(m.id, (c.queue[m.method] as (...a: unknown[]) => Promise<unknown>)(...m.args));
          case 'metric':
            return void (c.metrics as unknown as Record<string, (...a: unknown[]) => void>)[m.method]?.(...m.args);
          case 'done': {
            const j = jobs.get(m.id);
            jobs.delete(m.id);
            return m.ok ? j?.resolve(m.result) : j?.reject(fromWire(m.error));
          }
        }
      });
      w.on('error', (err) => {
        failure = err;
        c.logger.error({ err }, 'job host thread failed');
      });
      w.on('exit', (code) => {
        alive = false;
        const err = failure ?? new Error(`the job host thread exited (${code})`);
        for (const j of jobs.values()) j.reject(err);
        jobs.clear();
        // A transaction the thread left open would hold PGlite for good.
        for (const t of txs.values()) t.end(false);
        txs.clear();
        reject(err);
        if (started && !closing) {
          c.logger.error({ err }, 'job host thread exited: starting a new one');
          // Jobs arriving meanwhile wait for the new host instead of burning their retries.
          current = new Promise<void>((r) => setTimeout(r, 1000).unref()).then(spawn);
          current.catch((e) => c.logger.error({ err: e }, 'job host thread could not restart'));
        }
      });
    });

  async function dbCall(m: Extract<HostMessage, { t: 'db' }>): Promise<unknown> {
    if (m.op === 'begin') {
      const entry = { tx: noTx, end: (_commit: boolean) => {}, done: Promise.resolve() as Promise<unknown> };
      await new Promise<void>((opened, failed) => {
        entry.done = c.db
          .transaction(async (tx) => {
            const decided = new Promise<boolean>((r) => (entry.end = r));
            entry.tx = tx;
            txs.set(m.tx!, entry);
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
      const t = txs.get(m.tx!);
      txs.delete(m.tx!);
      if (!t) throw new Error('no such transaction');
      t.end(m.op === 'commit');
      await t.done;
      return null;
    }
    if (m.op === 'exec') return c.db.exec(m.sql!);
    const on: Queryable = m.tx !== undefined ? (txs.get(m.tx)?.tx ?? noTx) : c.db;
    return on.query(m.sql!, m.params);
  }

  let current = spawn();
  await current;
  started = true;
  const handlers = Object.fromEntries(
    jobNames.map((name) => [
      name,
      async (data: unknown, ctx: { id: string; attempt: number }) => {
        if (!alive) await current;
        if (closing || !alive) throw new Error('the job host thread is not running');
        const id = nextJob++;
        return new Promise<Record<string, unknown>>((resolve, reject) => {
          jobs.set(id, { resolve, reject });
          post({ t: 'job', id, name, data, ctx, trace: { ...currentTrace() } });
        });
      },
    ]),
  ) as unknown as JobHandlers;

  return {
    handlers,
    async close() {
      closing = true;
      const w = worker;
      if (!w || !alive) return;
      const gone = new Promise<void>((r) => w.once('exit', () => r()));
      post({ t: 'close' });
      await gone;
    },
  };
}

const ROLLBACK = new Error('rolled back by the job host');
const noTx: Queryable = { query: () => Promise.reject(new Error('the transaction is over')) };
