import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of work belongs to, carried through async calls without threading it by
 * hand: the API sets it per request, the queue stores it with each job it enqueues, and the
 * worker sets it again while the job runs, so one id joins the API's and the worker's log lines.
 */
export interface TraceContext {
  requestId?: string;
  jobId?: string;
}

const store = new AsyncLocalStorage<TraceContext>();

/** Run `fn` with `ctx` as the current trace context. */
export const withTrace = <T>(ctx: TraceContext, fn: () => T): T => store.run(ctx, fn);

/** The current trace context, or an empty one outside any request or job. */
export const currentTrace = (): TraceContext => store.getStore() ?? {};
