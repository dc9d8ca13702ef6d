import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { raw, type Reply } from '../http/route.js';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const OWN_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

interface AssetSource {
  file: string;
  type: string;
}

/**
 * The only files `/docs/assets/{file}` serves. An allow-list, not a directory mount, so no name
 * a client sends can reach any other file of `node_modules` or of this checkout.
 */
export const DOC_ASSETS: Readonly<Record<string, AssetSource>> = Object.freeze({
  'swagger-ui.css': { file: path.join(SWAGGER_DIR, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'index.css': { file: path.join(SWAGGER_DIR, 'index.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: path.join(SWAGGER_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: path.join(SWAGGER_DIR, 'favicon-32x32.png'), type: 'image/png' },
  'favicon-16x16.png': { file: path.join(SWAGGER_DIR, 'favicon-16x16.png'), type: 'image/png' },
  'docs-init.js': { file: path.join(OWN_DIR, 'docs-init.js'), type: 'text/javascript; charset=utf-8' },
});

/** A loaded asset with its strong validator. */
export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  /** Short content hash used as `?v=` in the page, so a new version gets a new URL. */
  version: string;
}

const loaded = new Map<string, Promise<Asset>>();

/** Read an allow-listed asset once and keep it in memory; null for any other name. */
export function loadAsset(name: string): Promise<Asset> | null {
  if (!Object.hasOwn(DOC_ASSETS, name)) return null;
  let pending = loaded.get(name);
  if (!pending) {
    const source = DOC_ASSETS[name]!;
    pending = readFile(source.file).then((body) => {
      const version = createHash('sha256').update(body).digest('hex').slice(0, 16);
      return { body, type: source.type, etag: `"${version}"`, version };
    });
    // A failed read is not cached: the next request tries again.
    pending.catch(() => loaded.delete(name));
    loaded.set(name, pending);
  }
  return pending;
}

/**
 * Reply for one asset. A URL carrying the current `?v=` can be cached for a year (the page
 * changes the URL when the content changes); any other URL is revalidated hourly by ETag.
 */
export function assetReply(asset: Asset, ifNoneMatch: string, v: unknown): Reply {
  const immutable = v === asset.version;
  const headers = {
    ETag: asset.etag,
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
    'X-Content-Type-Options': 'nosniff',
  };
  if (ifNoneMatch.split(',').some((t) => t.trim() === asset.etag)) return raw(304, '', asset.type, headers);
  return raw(200, asset.body, asset.type, headers);
}

/**
 * Strict policy for the docs page: scripts and connections only to this origin, so neither
 * Swagger UI nor anything it loads can phone home. Styles allow inline because Swagger UI
 * renders highlighted code with style attributes; swagger-ui.css embeds its icons as data: URLs.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** The HTML of `/docs` and `/`: Swagger UI on `/openapi.json`, every asset from `/docs/assets/`. */
export async function docsPage(): Promise<Reply> {
  const url = async (name: string) => `/docs/assets/${name}?v=${(await loadAsset(name)!).version}`;
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>markless API</title>
<link rel="stylesheet" href="${await url('swagger-ui.css')}">
<link rel="stylesheet" href="${await url('index.css')}">
<link rel="stylesheet" href="/app/base.css">
<link rel="icon" type="image/png" sizes="32x32" href="${await url('favicon-32x32.png')}">
<link rel="icon" type="image/png" sizes="16x16" href="${await url('favicon-16x16.png')}">
</head>
<body>
<header><div class="bar"><h1>markless API</h1><a href="/TreeIdentity">Ứng dụng hiện trường · Field app</a></div></header>
<noscript>This page needs JavaScript. The same description is at <a href="/openapi.json">/openapi.json</a>,
and a plain-text map at <a href="/llms.txt">/llms.txt</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${await url('swagger-ui-bundle.js')}"></script>
<script src="${await url('docs-init.js')}"></script>
</body>
</html>
`;
  return raw(200, html, 'text/html; charset=utf-8', {
    'Cache-Control': 'no-cache',
    'Content-Security-Policy': DOCS_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
}
