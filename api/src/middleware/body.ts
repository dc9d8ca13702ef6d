import type { Context } from 'koa';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { parseMultipart } from './multipart.js';

/** JSON and form bodies are small; anything bigger is refused while it streams in. */
export const SMALL_BODY_BYTES = 1_000_000;
/** Deeper JSON is refused with 422: nothing we accept nests this far, and deep values cost recursion later. */
export const MAX_JSON_DEPTH = 32;

/** True when the request carries a body (Content-Length > 0 or chunked), as type-is decides it. */
export function hasBody(ctx: Context): boolean {
  const te = ctx.get('transfer-encoding');
  return te !== '' || Number(ctx.get('content-length') || 0) > 0;
}

/** 415 naming the media type the route expects. */
export function unsupportedType(ctx: Context, expected: string): AppError {
  return new AppError(415, 'content_type_unsupported', { expected, got: ctx.get('content-type') || '(none)', field: 'content-type' });
}

/**
 * Read at most `limit` bytes. Hand-written (rather than @koa/bodyparser) because the limit must
 * cut off a chunked body as it streams and leave the socket to the lingering close in
 * `closeAfterResponse`. Listeners, not `for await`: leaving a `for await` early destroys the
 * request, and a destroyed request's socket is gone when the lingering close runs.
 */
function readSmall(ctx: Context, limit: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    ctx.state.cutOff = true;
    return Promise.reject(ERRORS.tooLarge(limit));
  }
  const req = ctx.req;
  // A client that resets mid-body must never leave an 'error' with no listener.
  req.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAbort);
      req.off('close', onAbort);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        stop();
        ctx.state.cutOff = true;
        reject(ERRORS.tooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onAbort = () => {
      if (req.complete) return;
      stop();
      reject(ERRORS.validation('body', 'body_incomplete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAbort);
    req.on('close', onAbort);
  });
}

/** Depth of a parsed JSON value, walked without recursion so a 100 000-deep array cannot overflow. */
export function jsonDepth(value: unknown, cap = Infinity): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) max = d;
    if (max > cap) return max;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

function parseJson(text: string): unknown {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ERRORS.invalidJson();
  }
  if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw new AppError(422, 'json_too_deep', { field: 'body', max: MAX_JSON_DEPTH });
  return value;
}

/**
 * Parse a JSON body (empty means `{}`); bad JSON is a 422 on `body`. A body sent with any other
 * content type is a 415: `text/plain` is what a cross-site "simple" request can send without a
 * preflight, so accepting it would let another site post as a signed-in browser.
 */
export async function readJson(ctx: Context, limit = SMALL_BODY_BYTES): Promise<unknown> {
  if (!hasBody(ctx)) return {};
  if (!ctx.is('application/json', '+json')) throw unsupportedType(ctx, 'application/json');
  return parseJson(await readSmall(ctx, limit));
}

/**
 * Parse a form: urlencoded, multipart/form-data without files (what a browser's FormData sends),
 * or JSON when the client sent JSON to a form route.
 */
export async function readForm(ctx: Context, limit = SMALL_BODY_BYTES): Promise<Record<string, string>> {
  if (!hasBody(ctx)) return {};
  if (ctx.is('application/json', '+json')) return (await readJson(ctx, limit)) as Record<string, string>;
  if (ctx.is('multipart/form-data')) {
    const { fields } = await parseMultipart(ctx, { fileBytes: 0, totalBytes: limit, maxFiles: 0 });
    // A repeated field keeps its last value, like URLSearchParams' fromEntries.
    return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Array.isArray(v) ? v[v.length - 1]! : v]));
  }
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw unsupportedType(ctx, 'application/x-www-form-urlencoded, multipart/form-data or application/json');
  }
  return Object.fromEntries(new URLSearchParams(await readSmall(ctx, limit)));
}
