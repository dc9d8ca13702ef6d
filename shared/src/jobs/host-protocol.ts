/**
 * Messages between the API process's main thread and each of its job host threads (embedded
 * mode, JOB_HOSTS of them; shared/src/jobs/thread-host.ts). A host runs the job handlers and its
 * engine pool; the main thread keeps the database, the queue and the metrics, and answers the
 * host's calls on them. Everything is plain data.
 */
import type { MessagePort } from 'node:worker_threads';
import { AppError } from '../domain/errors.js';

/** The engine pool's settings, as the engine thread reports them (several hosts share its pool). */
export interface EngineSettings {
  size: number;
  batchSize: number;
  lingerMs: number;
  ortThreads: number;
}

export type DbOp = 'query' | 'exec' | 'begin' | 'commit' | 'rollback';

/** Host → main. */
export type HostMessage =
  | { t: 'ready'; engine?: EngineSettings }
  /** The engine thread answered its `calls`-th call of host `host`. */
  | { t: 'served'; host: number; calls: number }
  | { t: 'failed'; error: string }
  | { t: 'db'; id: number; op: DbOp; tx?: number; sql?: string; params?: unknown[] }
  | { t: 'queue'; id: number; method: 'enqueue' | 'get' | 'waitFor'; args: unknown[] }
  | { t: 'metric'; method: string; args: unknown[] }
  /** The host began job `id` (posted before its handler runs, so it arrives even if the handler then holds the thread). */
  | { t: 'started'; id: number }
  | { t: 'done'; id: number; ok: true; result: Record<string, unknown> }
  | { t: 'done'; id: number; ok: false; error: WireErrorLike };

/** Main → host. */
export type MainMessage =
  | {
      t: 'job';
      id: number;
      name: string;
      data: unknown;
      ctx: { id: string; attempt: number };
      trace: { requestId?: string; jobId?: string };
    }
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: WireErrorLike }
  | { t: 'close' }
  /** To the engine thread: serve host `host` on `port` (transferred). */
  | { t: 'attach'; host: number; port: MessagePort }
  /** To a job host: the engine thread (restarted) is now on `port` (transferred). */
  | { t: 'engine'; port: MessagePort };

export interface WireErrorLike {
  name: string;
  message: string;
  fields: Record<string, unknown>;
  app?: { status: number; code: string; params: Record<string, unknown>; headers: Record<string, string> };
}

/** Plain fields of any thrown value (an AppError keeps its status, code and params), so the other side can rebuild it. */
export function toWire(err: unknown): WireErrorLike {
  const e = (err instanceof Error ? err : new Error(String(err))) as Error & Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const k of Object.keys(e)) {
    try {
      fields[k] = structuredClone(e[k]);
    } catch {
      // A field that cannot cross (a function, a socket) stays behind.
    }
  }
  const app = err instanceof AppError ? { status: err.status, code: err.code, params: err.params, headers: err.headers } : undefined;
  return { name: e.name, message: e.message, fields, app };
}

/**
 * The error again: an AppError as an AppError (the API maps it to its status), anything else as
 * an Error carrying the same fields (`unrecoverable`, `code`, `reasons`...), on `proto` when given.
 */
export function fromWire(w: WireErrorLike, proto?: object): Error {
  if (w.app) return new AppError(w.app.status, w.app.code as AppError['code'], w.app.params, w.app.headers);
  const e = proto ? (Object.create(proto) as Error) : new Error(w.message);
  Object.defineProperty(e, 'message', { value: w.message, writable: true, configurable: true });
  return Object.assign(e, w.fields, { name: w.name });
}
