import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETECT_CONFIDENT } from '../../shared/src/domain/animal-species.js';
import { detectableShots } from '../support/animal-shots.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/**
 * Issue 39 item 2: a public lookup answers the owner routes' calibrated verdict, says when the
 * photo is not a fruit, and never shows a weak candidate as confident. One published fruit is the
 * hardest case: with no rival in the pool, any peel used to come back near certain.
 */
describe('public fruit lookup: an honest, calibrated verdict', () => {
  let app: TestApp;
  let owner: { token: string };
  let fruitId = '';
  let published: Buffer;
  let stranger: Buffer;
  let cow: Buffer;
  const lookup = (photo: Buffer, lang = 'vi', route = '/api/fruit/lookup') =>
    api(app.url, 'POST', route, { body: photoForm([photo]), headers: { 'accept-language': lang } });

  beforeAll(async () => {
    app = await startTestApp({ env: { FRUIT_PUBLIC_PER_MIN: '10000' } });
    owner = await signup(app.url, 'orchard');
    const peel = await textureImage(3901, 256);
    const enrol = await api(app.url, 'POST', '/api/fruit/enroll', {
      body: photoForm([await otherView(peel, 1), await otherView(peel, 2)], { species: 'mango', name: 'Xoài 1' }),
      token: owner.token,
    });
    expect(enrol.status, enrol.text).toBe(200);
    fruitId = enrol.json.fruit_id;
    expect((await api(app.url, 'POST', `/api/fruit/${fruitId}/publish`, { token: owner.token })).status).toBe(200);
    published = await otherView(peel, 9);
    // A fruit nobody enrolled: another peel altogether.
    stranger = await otherView(await textureImage(3977, 256), 9);
    // A photo the detector is confident shows an animal (DETECT_CONFIDENT), as a cow's photo would be.
    cow = (await detectableShots(3, 1, { minScore: DETECT_CONFIDENT }))[0]!.photo;
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('a never-enrolled fruit is not a match, and no candidate is shown as one', async () => {
    for (const route of ['/api/fruit/lookup', '/api/fruit/scan']) {
      const r = await lookup(stranger, 'vi', route);
      expect(r.status, r.text).toBe(200);
      expect(['uncertain', 'no_match']).toContain(r.json.verdict);
      expect(r.json.not_fruit).toBe(false);
      expect(r.json.candidates.map((c: { confidence: string }) => c.confidence)).not.toContain('match');
      expect(r.json.message).toMatch(/[.]$/);
    }
  });

  it('a cow is not a fruit: said in a sentence, with no fruit offered', async () => {
    const vi = await lookup(cow);
    expect(vi.status, vi.text).toBe(200);
    expect(vi.json).toMatchObject({ ok: true, verdict: 'no_match', not_fruit: true, candidates: [], count: 0 });
    expect(typeof vi.json.seen).toBe('string');
    expect(vi.json.message).toContain('không phải ảnh quả');
    const en = await lookup(cow, 'en', '/api/fruit/scan');
    expect(en.json).toMatchObject({ verdict: 'no_match', not_fruit: true, candidates: [] });
    expect(en.json.message).toContain('is not a fruit');
  });

  it('the published fruit itself comes first, with the verdict the owner route gives under the public calibration', async () => {
    const pub = await lookup(published);
    expect(pub.status, pub.text).toBe(200);
    expect(pub.json.candidates[0]).toMatchObject({ fruit_id: fruitId, name: 'Xoài 1' });
    const own = await api(app.url, 'POST', '/api/fruit/identify', { body: photoForm([published]), token: owner.token });
    expect(own.status, own.text).toBe(200);
    expect(own.json.candidates[0]?.individual_id).toBe(fruitId);
    // The same decision; only a match no calibration vouched for is withheld from a stranger.
    const expected = own.json.verdict === 'match' && !pub.json.match_vouched ? 'uncertain' : own.json.verdict;
    expect(pub.json.verdict).toBe(expected);
    expect(pub.json.candidates[0].confidence).toBe(expected === 'match' ? 'match' : 'possible');
    const scan = await lookup(published, 'en', '/api/fruit/scan');
    expect(scan.json).toMatchObject({ verdict: expected, not_fruit: false });
    expect(scan.json.candidates[0].fruit_id).toBe(fruitId);
    expect(typeof scan.json.scan_token).toBe('string');
  });

  it('documents the verdict fields in the OpenAPI', async () => {
    const doc = (await api(app.url, 'GET', '/openapi.json')).json;
    for (const path of ['/api/fruit/lookup', '/api/fruit/scan']) {
      let schema = doc.paths[path].post.responses['200'].content['application/json'].schema;
      if (schema.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop()];
      expect(schema.properties.verdict.enum).toEqual(['match', 'uncertain', 'no_match']);
      expect(schema.properties.not_fruit.type).toBe('boolean');
      expect(schema.properties.message.type).toBe('string');
      let item = schema.properties.candidates.items;
      if (item.$ref) item = doc.components.schemas[item.$ref.split('/').pop()];
      expect(item.properties.confidence.enum).toEqual(['match', 'possible', 'unlikely']);
    }
  });
});
