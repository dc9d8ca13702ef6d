import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../support/app.js';

const PATHS = ['/TreeIdentity', '/TreeIdentity/', '/identify', '/Identify'];

describe('the field UI page', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
  });
  afterAll(async () => app?.stop());

  it('serves the same built app page at all four paths, with no-cache and Last-Modified, and its modules from this origin', async () => {
    const pages = await Promise.all(PATHS.map((p) => api(app.url, 'GET', p)));
    for (const [i, r] of pages.entries()) {
      expect(r.status, PATHS[i]).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(Date.parse(r.headers.get('last-modified') ?? '')).not.toBeNaN();
      expect(r.text).toBe(pages[0]!.text);
    }
    const html = pages[0]!.text;
    // Built modules and stylesheet from this origin only: no inline script, nothing from elsewhere.
    expect(html).not.toMatch(/<script>|https?:\/\//);
    expect(html).toContain('<script type="module" src="/app/main.js"></script>');
    expect(pages[0]!.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(pages[0]!.headers.get('content-security-policy')).toContain("connect-src 'self'");
    // Every module the page loads is served, and none of them holds or prints a token.
    const main = await api(app.url, 'GET', '/app/main.js');
    expect(main.status).toBe(200);
    expect(main.headers.get('content-type')).toMatch(/^text\/javascript/);
    const modules = new Set<string>(['main.js']);
    for (const name of modules) {
      const m = await api(app.url, 'GET', `/app/${name}`);
      expect(m.status, name).toBe(200);
      expect(m.text).not.toMatch(/localStorage\.setItem\([^)]*token|Authorization/i);
      for (const [, dep] of m.text.matchAll(/from '\.\/([a-z0-9-]+\.js)'/g)) modules.add(dep!);
    }
    expect(modules.size).toBeGreaterThan(5);
    expect((await api(app.url, 'GET', '/app/app.css')).status).toBe(200);
    for (const bad of ['/app/..%2Fpackage.json', '/app/index.html', '/app/nope.js', '/app/.env'])
      expect((await api(app.url, 'GET', bad)).status, bad).toBe(404);
  });

  it('answers 304 to If-Modified-Since at or after Last-Modified, and 200 to an older or broken date', async () => {
    const first = await api(app.url, 'GET', '/TreeIdentity');
    const lastModified = first.headers.get('last-modified')!;
    for (const p of PATHS) {
      const same = await api(app.url, 'GET', p, { headers: { 'if-modified-since': lastModified } });
      expect(same.status, p).toBe(304);
      expect(same.text).toBe('');
      expect(same.headers.get('last-modified')).toBe(lastModified);
    }
    const later = new Date(Date.parse(lastModified) + 3_600_000).toUTCString();
    expect((await api(app.url, 'GET', '/identify', { headers: { 'if-modified-since': later } })).status).toBe(304);
    const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
    const stale = await api(app.url, 'GET', '/identify', { headers: { 'if-modified-since': older } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
    expect((await api(app.url, 'GET', '/Identify', { headers: { 'if-modified-since': 'yesterday-ish' } })).status).toBe(200);
  });
});
