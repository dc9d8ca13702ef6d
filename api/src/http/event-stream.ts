import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { Reply } from './route.js';

/** One server-sent event. */
export const sseFrame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A progress stream (SSE) of the frames `events` yields until it ends or the client hangs up.
 * `release` frees the stream's slot (stream-slots.ts) whichever comes first; it must be idempotent.
 */
export function eventStream(ctx: Context, release: () => void, events: (signal: AbortSignal) => AsyncIterable<string>): Reply {
  const out = new PassThrough();
  const stop = new AbortController();
  out.on('error', () => stop.abort());
  ctx.res.on('close', () => {
    release();
    stop.abort();
  });
  ctx.req.socket.setTimeout(0);
  // A comment line now and then keeps proxies from closing a stream that waits on slow work.
  const ping = setInterval(() => out.write(': ping\n\n'), 15_000);
  ping.unref();
  void (async () => {
    for await (const f of events(stop.signal)) out.write(f);
  })()
    .catch(() => undefined)
    .finally(() => {
      clearInterval(ping);
      release();
      out.end();
    });
  return new Reply(
    200,
    out,
    { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-store', 'X-Accel-Buffering': 'no' },
    true,
  );
}
