import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../support/app.js';

const PATHS = ['/TreeIdentity', '/TreeIdentity/', '/identify', '/Identify'];

describe('the field UI page', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app?.stop());

  it('serves the same self-contained HTML at all four paths, with no-cache and Last-Modified', async () => {
    const pages = await Promise.all(PATHS.map((p) => api(app.url, 'GET', p)));
    for (const [i, r] of pages.entries()) {
      expect(r.status, PATHS[i]).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(Date.parse(r.headers.get('last-modified') ?? '')).not.toBeNaN();
      expect(r.text).toBe(pages[0]!.text);
    }
    const html = pages[0]!.text;
    // Local JS only: one inline script, no external script, stylesheet or font.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|https?:\/\//);
    for (const route of ['/api/scan', '/api/scan/confirm', '/api/identify', '/api/enroll', '/api/rename', '/api/trees']) expect(html).toContain(route);
    // The CSP pins exactly that script by its hash, so nothing else can run on the page.
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    expect(pages[0]!.headers.get('content-security-policy')).toContain(`script-src 'sha256-${hash}'`);
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
