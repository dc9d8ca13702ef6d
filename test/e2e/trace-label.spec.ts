import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { readQr, svgToPng } from '../support/qr.js';

/** A code of the right shape that no tree has: same prefix and geohash, another suffix. */
const wrongCodeLike = (code: string) => code.replace(/-[^-]{8}$/, code.endsWith('ZZZZZZZZ') ? '-YYYYYYYY' : '-ZZZZZZZZ');

/**
 * The printable label of a code, `GET /t/{code}/label.svg`: a QR code of the code's absolute public
 * address and the code under it, for exactly the codes `/api/resolve/{code}` answers.
 */
describe('printable QR label of a traceability code', () => {
  let app: TestApp;
  let owner: { token: string; id: string };
  let tree: { id: string; code: string };
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    owner = await signup(app.url, 'label');
    const photos = await Promise.all([0, 1].map((i) => textureImage(5210 + i, 320)));
    const r = await api(app.url, 'POST', '/api/enroll', {
      token: owner.token,
      body: photoForm(photos, { species: 'durian', name: 'labelled tree', lat: '10.7769', lon: '106.7009' }),
    });
    expect(r.status, r.text).toBe(200);
    tree = { id: r.json.tree_id, code: r.json.code };
  });
  afterAll(async () => app?.stop());

  const publish = (level: 'public' | 'restricted') =>
    api(app.url, 'POST', `/api/tree/${tree.id}/publish`, { token: owner.token, form: { level } });

  it("draws a published tree's QR code of its absolute /t/{code} address, with the code printed under it", async () => {
    expect((await publish('public')).status).toBe(200);
    const r = await api(app.url, 'GET', `/t/${tree.code}/label.svg`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(r.text).toMatch(/^<\?xml[^>]*>\s*<svg /);
    expect(r.text).toContain(`>${tree.code}</text>`);
    // Read back as a phone would: the label drawn to pixels, its QR decoded.
    expect(await readQr(await svgToPng(r.text))).toBe(`${app.url}/t/${tree.code}`);
  });

  it('labels a restricted code too, since its page answers a summary', async () => {
    expect((await publish('restricted')).status).toBe(200);
    const r = await api(app.url, 'GET', `/t/${tree.code}/label.svg`);
    expect(r.status).toBe(200);
    expect(r.text).toContain(tree.code);
  });

  it('answers a wrong, a malformed and a private code with the fixed 404 body of /api/resolve/{code}', async () => {
    const wrong = wrongCodeLike(tree.code);
    const usual = await api(app.url, 'GET', `/api/resolve/${wrong}`);
    expect(usual.status).toBe(404);
    expect(usual.json).toEqual({
      ok: false,
      error: expect.any(String),
      detail: expect.any(String),
      code: 'code_unknown',
      request_id: expect.any(String),
    });
    expect((await api(app.url, 'POST', `/api/tree/${tree.id}/unpublish`, { token: owner.token })).status).toBe(200);
    for (const code of [wrong, 'not-a-code', tree.code, tree.code.toLowerCase()]) {
      const r = await api(app.url, 'GET', `/t/${encodeURIComponent(code)}/label.svg`);
      expect(r.status, code).toBe(404);
      expect(r.headers.get('content-type')).toBe(usual.headers.get('content-type'));
      expect(r.text, code).toBe(usual.text);
    }
    // The sentence is whole in either language.
    const en = await api(app.url, 'GET', `/t/${wrong}/label.svg`, { headers: { 'accept-language': 'en' } });
    expect(en.json.error).toMatch(/^[A-Z].*\.$/);
  });

  it('is documented in the OpenAPI document as an SVG', async () => {
    const doc = (await api(app.url, 'GET', '/openapi.json')).json;
    const op = doc.paths['/t/{code}/label.svg']?.get;
    expect(op?.tags).toContain('traceability');
    expect(Object.keys(op.responses['200'].content)).toEqual(['image/svg+xml']);
    expect(op.responses['404']).toBeDefined();
  });
});
