import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { publicFruitSuite } from './fruit-public.helpers.js';

publicFruitSuite('embedded');

describe('public fruit rate limit and contract', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', env: { FRUIT_PUBLIC_PER_MIN: '2' } });
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('answers 429 with Retry-After once a client passes its budget, before reading the photo', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 3; i++) {
      last = await api(app.url, 'POST', '/api/fruit/lookup', { body: new FormData() });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([422, 422, 429]);
    const wait = Number(last!.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(last!.json.code).toBe('rate_limited');
    expect(
      (
        await api(app.url, 'POST', '/api/fruit/scan/choose', {
          form: { scan_token: 'x', fruit_id: '00000000-0000-4000-8000-000000000000' },
        })
      ).status,
    ).toBe(429);
  });

  it('answers a JSON body sent to a photo route with 415 naming multipart, not a crash', async () => {
    const other = await startTestApp({ engine: 'deterministic' });
    try {
      const r = await api(other.url, 'POST', '/api/fruit/lookup', { json: {} });
      expect(r.status).toBe(415);
      expect(r.json).toMatchObject({ ok: false, code: 'content_type_unsupported' });
      expect(r.json.error).toContain('multipart/form-data');
    } finally {
      await other.stop();
    }
  }, 180_000);

  it('documents every scan/choose transition in the OpenAPI', async () => {
    const doc = (await api(app.url, 'GET', '/openapi.json')).json;
    const choose = doc.paths['/api/fruit/scan/choose'].post;
    expect(Object.keys(choose.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '429']));
    const codes = ['fruit_scan_token_invalid', 'fruit_scan_token_used', 'fruit_scan_token_expired', 'fruit_scan_not_offered'];
    for (const code of codes) expect(choose.description).toContain(code);
    const bad = choose.responses['400'].content['application/json'].schema;
    const resolved = bad.$ref ? doc.components.schemas[bad.$ref.split('/').pop()] : bad;
    expect(resolved.properties.code.enum).toEqual(codes);
    expect(doc.paths['/api/fruit/scan'].post.security ?? []).toEqual([]);
    expect(doc.paths['/api/fruit/lookup'].post.responses['200']).toBeDefined();
  });
});
