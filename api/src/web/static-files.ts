import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../../shared/src/domain/errors.js';
import { raw, type Reply } from '../http/route.js';

/** Where `npm run build` (web/build.mjs) puts the web app. */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/** Only flat file names of the kinds the build writes: no paths, no dot-files, nothing else served. */
export const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|css|html|svg|png|webmanifest)$/;

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  webmanifest: 'application/manifest+json',
};

/**
 * Pages and modules of the app: scripts, styles, pictures and calls from this origin only (no
 * CDN, nothing fetched at run time); blob: and data: for the camera previews.
 */
export const WEB_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

interface StaticFile {
  bytes: Buffer;
  type: string;
  etag: string;
  /** Whole seconds: HTTP dates carry no milliseconds, so comparisons must not either. */
  lastModifiedS: number;
}

const cache = new Map<string, Promise<StaticFile | null>>();

async function load(name: string): Promise<StaticFile | null> {
  const file = path.join(WEB_DIST, name);
  const [bytes, info] = await Promise.all([readFile(file), stat(file)]).catch(() => [null, null] as const);
  if (!bytes || !info) return null;
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
  return { bytes, type: TYPES[name.split('.').pop()!]!, etag, lastModifiedS: Math.floor(info.mtimeMs / 1000) };
}

/** A built file by name, read once per process; null when it is not one (or not built). */
export function webFile(name: string): Promise<StaticFile | null> {
  if (!ASSET_NAME.test(name)) return Promise.resolve(null);
  let p = cache.get(name);
  // A missing file is not remembered, so a build made after start-up is picked up.
  if (!p) cache.set(name, (p = load(name).then((f) => (f ? f : (cache.delete(name), null)))));
  return p;
}

/** True when the client's copy is at least as new as ours (RFC 9110 §13.1.3). */
export function notModifiedSince(ifModifiedSince: string, lastModifiedS: number): boolean {
  if (!ifModifiedSince) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Math.floor(since / 1000) >= lastModifiedS;
}

/**
 * Answer with a built file: `Cache-Control: no-cache`, validators, and 304 when the client's
 * copy is current (If-None-Match first, then If-Modified-Since, as RFC 9110 orders them).
 */
export async function serveWebFile(name: string, req: { ifNoneMatch: string; ifModifiedSince: string }): Promise<Reply> {
  const f = await webFile(name);
  if (!f) throw new AppError(503, 'web_not_built');
  const headers = {
    ...WEB_HEADERS,
    'Cache-Control': 'no-cache',
    ETag: f.etag,
    'Last-Modified': new Date(f.lastModifiedS * 1000).toUTCString(),
  };
  const fresh = req.ifNoneMatch
    ? req.ifNoneMatch
        .split(',')
        .map((s) => s.trim())
        .includes(f.etag)
    : notModifiedSince(req.ifModifiedSince, f.lastModifiedS);
  if (fresh) return raw(304, '', f.type, headers);
  return raw(200, f.bytes, f.type, headers);
}

/**
 * A page whose answer depends on state that can change at any moment (a trace code being
 * published or hidden): no validators, never stored, so no cache can replay an old decision.
 */
export async function servePage(name: string, status: number, data?: unknown): Promise<Reply> {
  const f = await webFile(name);
  if (!f) throw new AppError(503, 'web_not_built');
  const body =
    data === undefined
      ? f.bytes
      : Buffer.from(
          f.bytes.toString('utf8').replace(DATA_SLOT, () => dataBlock(data)),
          'utf8',
        );
  return raw(status, body, f.type, { ...WEB_HEADERS, 'Cache-Control': 'no-store' });
}

/** Where a page takes its data: the page reads it without a second request, and it is there without scripts too. */
const DATA_SLOT = '<!--page-data-->';

/** JSON inside a non-executed script block; `<` escaped so no string in it can close the block. */
export function dataBlock(data: unknown): string {
  return `<script type="application/json" id="page-data">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`;
}
