/**
 * POST /api/care/match and GET /api/care/banned against the real service: one test per rule of
 * spec section 2 "Care match result", each reason value, and each banned_check value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { blankImage, photoForm } from '../support/images.js';
import { labelImage, labelSpec } from '../support/labels.js';

/** The invariants every answer must hold (rules 1 and 2), checked on every response of this file. */
function checkInvariants(b: any) {
  expect(Array.isArray(b.candidates)).toBe(true);
  expect(Array.isArray(b.banned)).toBe(true);
  expect(['ok', 'unavailable', 'not_run']).toContain(b.banned_check);
  if (b.candidates.length > 0) expect([undefined, 'ambiguous']).toContain(b.reason);
  else expect(b.reason).toBeDefined();
  if (b.reason === 'banned_not_in_catalog') {
    expect(b.banned.length).toBeGreaterThan(0);
    expect(b.banned_check).toBe('ok');
  }
  if (b.banned.length > 0) expect(b.message).toMatch(/^(DANGER|NGUY HIỂM)/);
  expect(typeof b.message).toBe('string');
  // One complete sentence: one final full stop, none inside (names carry no full stops).
  expect(b.message.trim()).toMatch(/^[^.]+\.$/);
  for (const c of b.candidates) expect(c).not.toHaveProperty('score');
}

describe('care match', () => {
  let app: TestApp;
  let noOcr: TestApp;
  let noCatalogue: TestApp;
  let token: string;
  let tokenNoOcr: string;
  let tokenNoCat: string;

  const match = async (base: string, tok: string, fields: Record<string, string>, photos: Buffer[] = [], lang = 'en') => {
    const r = await fetch(`${base}/api/care/match`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok}`, 'accept-language': lang },
      body: photoForm(photos, fields),
    });
    const json = (await r.json()) as any;
    expect(r.status).toBe(200);
    checkInvariants(json);
    return json;
  };

  beforeAll(async () => {
    [app, noOcr, noCatalogue] = await Promise.all([
      startTestApp({ engine: 'deterministic' }),
      startTestApp({ engine: 'deterministic', env: { TESSERACT_BIN: '/nonexistent/tesseract' } }),
      startTestApp({ engine: 'deterministic', env: { CARE_BANNED_FILE: '/nonexistent/banned.json' } }),
    ]);
    const [a, b, c] = await Promise.all([signup(app.url), signup(noOcr.url), signup(noCatalogue.url)]);
    [token, tokenNoOcr, tokenNoCat] = [a.token, b.token, c.token];
  }, 240_000);
  afterAll(async () => {
    await Promise.all([app?.stop(), noOcr?.stop(), noCatalogue?.stop()]);
  });

  it('needs a token', async () => {
    const r = await fetch(`${app.url}/api/care/match`, { method: 'POST', body: photoForm([], { text: 'Draxxin' }) });
    expect(r.status).toBe(401);
  });

  it('a clean match: one candidate, no reason, banned_check ok, and still a message', async () => {
    const b = await match(app.url, token, { text: 'Draxxin injectable solution' });
    expect(b.candidates.map((c: any) => c.id)).toEqual(['draxxin']);
    expect(b.candidates[0].intervals.length).toBeGreaterThan(0);
    expect(b.candidates[0].source.title).toMatch(/NADA 141-244/);
    expect(b.reason).toBeUndefined();
    expect(b.banned).toEqual([]);
    expect(b.banned_check).toBe('ok');
    expect(b.message).toBe('The matching product is Draxxin (tulathromycin injection); no banned or restricted ingredient was found.');
  });

  it('reason no_input: nothing sent; banned_check not_run', async () => {
    const b = await match(app.url, token, { text: '   ' });
    expect(b).toMatchObject({ candidates: [], reason: 'no_input', banned: [], banned_check: 'not_run' });
    expect(b.message).toBe('Banned ingredients have not been checked; neither a product name nor a label photo was sent.');
  });

  it('reason ocr_unavailable: a photo alone while tesseract is missing; banned_check not_run', async () => {
    const b = await match(noOcr.url, tokenNoOcr, {}, [await labelImage(labelSpec(0))]);
    expect(b).toMatchObject({ candidates: [], reason: 'ocr_unavailable', banned: [], banned_check: 'not_run' });
    expect(b.message).toMatch(/text recognition is not available/);
  });

  it('reason ocr_no_text: a photo with nothing written on it; banned_check not_run', async () => {
    const b = await match(app.url, token, {}, [await blankImage(400)]);
    expect(b).toMatchObject({ candidates: [], reason: 'ocr_no_text', banned: [], banned_check: 'not_run' });
  });

  it('reason no_match: text that names nothing known; banned_check ok means clean', async () => {
    const b = await match(app.url, token, { text: 'Phân bón hữu cơ vi sinh Sông Gianh' });
    expect(b).toMatchObject({ candidates: [], reason: 'no_match', banned: [], banned_check: 'ok' });
    expect(b.message).toBe('No matching product was found in the product store; no banned or restricted ingredient was found.');
  });

  it('reason ambiguous: several candidates found only through a shared ingredient', async () => {
    const b = await match(app.url, token, { text: 'ceftiofur' });
    expect(b.reason).toBe('ambiguous');
    expect(b.candidates.map((c: any) => c.id).sort()).toEqual(['excede', 'excenel_rte']);
    expect(b.banned_check).toBe('ok');
  });

  it('reason banned_not_in_catalog: banned ingredient, no product; implies banned non-empty and banned_check ok (rule 2)', async () => {
    const b = await match(app.url, token, { text: 'Thuốc trừ sâu FURADAN 3GR hoạt chất Carbofuran 3%' });
    expect(b.candidates).toEqual([]);
    expect(b.reason).toBe('banned_not_in_catalog');
    expect(b.banned_check).toBe('ok');
    expect(b.banned.map((x: any) => x.id)).toEqual(['carbofuran']);
    expect(b.banned[0].sources.map((s: any) => s.id)).toEqual(['vn_pp_10_2020', 'rotterdam_iii']);
    expect(b.message).toBe(
      'DANGER: it contains banned ingredients (Carbofuran) and must not be used; this product is not in the store of registered products.',
    );
  });

  it('rule 2 reverse: banned non-empty with no reason is normal (a registered product with a restricted ingredient)', async () => {
    const b = await match(app.url, token, { text: 'Baytril 100 enrofloxacin 100 mg/mL' });
    expect(b.candidates.map((c: any) => c.id)).toEqual(['baytril100']);
    expect(b.reason).toBeUndefined();
    expect(b.banned.map((x: any) => x.id)).toEqual(['fluoroquinolones']);
    expect(b.banned_check).toBe('ok');
  });

  it('banned non-empty means DANGER regardless of reason or candidate count: the message leads with it', async () => {
    const b = await match(app.url, token, { text: 'ceftiofur chloramphenicol' }, [], 'vi');
    expect(b.reason).toBe('ambiguous');
    expect(b.candidates.length).toBe(2);
    expect(b.banned.map((x: any) => x.id)).toContain('chloramphenicol');
    expect(b.message.startsWith('NGUY HIỂM: có hoạt chất bị cấm (Chloramphenicol)')).toBe(true);
    // Decreasing danger: the banned clause comes before the ambiguity clause.
    expect(b.message.indexOf('NGUY HIỂM')).toBeLessThan(b.message.indexOf('có nhiều sản phẩm phù hợp'));
  });

  it('banned_check unavailable: catalogue not loaded; product identification still valid, and no banned_not_in_catalog', async () => {
    const ok = await match(noCatalogue.url, tokenNoCat, { text: 'Draxxin' });
    expect(ok).toMatchObject({ banned: [], banned_check: 'unavailable' });
    expect(ok.candidates.map((c: any) => c.id)).toEqual(['draxxin']);
    expect(ok.message).toBe(
      'The banned-ingredient list could not be checked right now, so it is not known whether the product contains one; the matching product is Draxxin (tulathromycin injection).',
    );
    const none = await match(noCatalogue.url, tokenNoCat, { text: 'carbofuran' });
    expect(none).toMatchObject({ candidates: [], reason: 'no_match', banned: [], banned_check: 'unavailable' });
    const list = await api(noCatalogue.url, 'GET', '/api/care/banned');
    expect(list.json).toMatchObject({ ok: true, available: false, count: 0, substances: [] });
  });

  it('rule 1: a non-empty candidates list never carries an empty-list reason', async () => {
    for (const text of ['Draxxin', 'Nuflor florfenicol', 'ceftiofur', 'Baytril enrofloxacin', 'Dithane M-45 mancozeb carbofuran']) {
      const b = await match(app.url, token, { text });
      expect(b.candidates.length).toBeGreaterThan(0);
      expect([undefined, 'ambiguous']).toContain(b.reason);
    }
  });

  it('message: Vietnamese by default, one sentence, every true condition, most dangerous first', async () => {
    const restricted = await match(app.url, token, { text: 'phenylbutazone' });
    expect(restricted.message).toBe(
      'DANGER: it contains restricted ingredients (Phenylbutazone in female dairy cattle 20 months of age or older) and must not be used; this product is not in the store of registered products.',
    );
    const b = await match(app.url, token, { text: 'Dithane M-45 mancozeb; paraquat; Baytril' }, [], 'vi');
    expect(b.banned.map((x: any) => x.id).sort()).toEqual(['fluoroquinolones', 'paraquat']);
    expect(b.reason).toBe('ambiguous');
    expect(b.message).toBe(
      'NGUY HIỂM: có hoạt chất bị cấm (Paraquat, Fluoroquinolones (extralabel use)), không được dùng; có nhiều sản phẩm phù hợp nên thứ tự chưa chắc chắn, hãy đối chiếu tên trên bao bì.',
    );
  });

  it('typed text is matched directly; the photo is then not read', async () => {
    const b = await match(app.url, token, { text: 'Draxxin' }, [await labelImage(labelSpec(0))]);
    expect(b.text_read).toBe('Draxxin');
    expect(b.banned).toEqual([]);
  });

  it('refuses a photo that is not an image with 422', async () => {
    const form = new FormData();
    form.append('files', new Blob([Buffer.from('not an image at all, just text bytes')]), 'x.jpg');
    const r = await fetch(`${app.url}/api/care/match`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(r.status).toBe(422);
    expect(((await r.json()) as any).ok).toBe(false);
  });

  it('GET /api/care/banned: q runs the same lookup as match (synonyms, trade names, CAS, Vietnamese with or without diacritics)', async () => {
    for (const [q, id] of [
      ['Gramoxone', 'paraquat'],
      ['1563-66-2', 'carbofuran'],
      ['xanh malachite', 'malachite_green'],
      ['Xanh Malachít', 'malachite_green'],
      ['hop chat thuy ngan', 'mercury'],
      ['Hợp chất thủy ngân', 'mercury'],
      ['Dipterex', 'trichlorfon'],
      ['analgin', 'dipyrone'],
    ] as const) {
      const r = await api(app.url, 'GET', `/api/care/banned?q=${encodeURIComponent(q)}`);
      expect(r.status).toBe(200);
      expect(r.json.substances.map((s: any) => s.id)).toContain(id);
      const m = await match(app.url, token, { text: q });
      expect(r.json.match.banned.map((s: any) => s.id)).toEqual(m.banned.map((s: any) => s.id));
      expect(r.json.match.reason).toBe(m.reason);
    }
  });

  it('GET /api/care/banned filters by scope and severity, every row with sources', async () => {
    const all = await api(app.url, 'GET', '/api/care/banned');
    expect(all.json.count).toBeGreaterThan(80);
    for (const s of all.json.substances) {
      expect(s.sources.length).toBeGreaterThan(0);
      for (const src of s.sources)
        expect(src).toEqual(
          expect.objectContaining({
            title: expect.any(String),
            article: expect.any(String),
            date: expect.any(String),
            url: expect.stringMatching(/^https:\/\//),
          }),
        );
    }
    const aqua = await api(app.url, 'GET', '/api/care/banned?scope=aquaculture&severity=restricted');
    expect(aqua.json.count).toBeGreaterThan(0);
    expect(aqua.json.substances.every((s: any) => s.scopes.includes('aquaculture') && s.severity === 'restricted')).toBe(true);
    expect(aqua.json.substances.map((s: any) => s.id)).toContain('tbt');
    const bad = await api(app.url, 'GET', '/api/care/banned?scope=forestry');
    expect(bad.status).toBe(422);
    const filtered = await api(app.url, 'GET', `/api/care/banned?q=${encodeURIComponent('carbofuran chloramphenicol')}&scope=livestock`);
    expect(filtered.json.substances.map((s: any) => s.id)).toEqual(['chloramphenicol']);
  });

  it('GET /api/care/products lists registered products with intervals and sources, filtered by scope and category', async () => {
    const all = await api(app.url, 'GET', '/api/care/products');
    expect(all.json.count).toBeGreaterThanOrEqual(10);
    for (const p of all.json.products) {
      expect(p.intervals.length).toBeGreaterThan(0);
      expect(p.source.url).toMatch(/^https:\/\//);
    }
    const crop = await api(app.url, 'GET', '/api/care/products?scope=crop&category=pesticide');
    expect(crop.json.products.length).toBeGreaterThan(0);
    expect(crop.json.products.every((p: any) => p.scope === 'crop' && p.intervals.every((i: any) => i.kind === 'pre_harvest'))).toBe(true);
  });
});
