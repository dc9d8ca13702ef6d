import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';
import { defineRoute, raw, type Reply, type RouteDef } from '../http/route.js';

const PAGE_FILE = fileURLToPath(new URL('../pages/field-ui.html', import.meta.url));

/** The field UI page, read once, with its validator and the CSP that allows exactly its one inline script. */
interface FieldPage {
  html: Buffer;
  /** Whole seconds: HTTP dates carry no milliseconds, so comparisons must not either. */
  lastModifiedS: number;
  csp: string;
}

let page: Promise<FieldPage> | null = null;

async function loadPage(): Promise<FieldPage> {
  const [html, info] = await Promise.all([readFile(PAGE_FILE), stat(PAGE_FILE)]);
  const script = /<script>([\s\S]*?)<\/script>/.exec(html.toString('utf8'))?.[1] ?? '';
  const hash = createHash('sha256').update(script, 'utf8').digest('base64');
  // Scripts only from this page (pinned by hash) and calls only to this origin: no CDN, no third party.
  const csp = [
    "default-src 'none'", `script-src 'sha256-${hash}'`, "connect-src 'self'", "img-src 'self' data: blob:",
    "style-src 'unsafe-inline'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'",
  ].join('; ');
  return { html, lastModifiedS: Math.floor(info.mtimeMs / 1000), csp };
}

/** True when the client's copy is at least as new as ours (RFC 9110 §13.1.3). */
export function notModifiedSince(ifModifiedSince: string, lastModifiedS: number): boolean {
  if (!ifModifiedSince) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Math.floor(since / 1000) >= lastModifiedS;
}

async function serve(ctx: Context): Promise<Reply> {
  // A failed read is not kept, so the next request tries again.
  const p = await (page ??= loadPage().catch((e) => ((page = null), Promise.reject(e))));
  const headers = {
    'Cache-Control': 'no-cache',
    'Last-Modified': new Date(p.lastModifiedS * 1000).toUTCString(),
    'Content-Security-Policy': p.csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
  // If-None-Match would take precedence, but the page sends no ETag, so only the date counts.
  if (notModifiedSince(ctx.get('if-modified-since'), p.lastModifiedS)) return raw(304, '', 'text/html; charset=utf-8', headers);
  return raw(200, p.html, 'text/html; charset=utf-8', headers);
}

/** The field UI at the four paths the apps and printed guides use (spec 9: all must remain). */
export function fieldUiRoutes(): RouteDef[] {
  const paths = ['/TreeIdentity', '/TreeIdentity/', '/identify', '/Identify'];
  return paths.map((path, i) =>
    defineRoute({
      method: 'get', path, tag: 'discovery', access: 'public', feature: 'field-ui',
      summary: i === 0 ? 'Field web app for trees: scan, identify, enrol, rename (HTML)' : `Field web app (same page as ${paths[0]})`,
      description: 'Cache-Control: no-cache; answers 304 when If-Modified-Since is not older than Last-Modified.',
      responses: {
        200: { description: 'the page', contentType: 'text/html' },
        304: { description: 'not modified since If-Modified-Since' },
      },
      handler: async (_input, ctx) => serve(ctx),
    }),
  );
}
