import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { ANIMAL_BOUNDS, animalScene } from '../../workers/src/vision/testing/animal-scene.js';
import { iou } from '../../workers/src/vision/detector.js';

const post = (app: TestApp, path: string, token: string, form: FormData, lang?: string) =>
  api(app.url, 'POST', path, { token, body: form, headers: lang ? { 'accept-language': lang } : {} });
const count = async (app: TestApp, sql: string) => (await app.container.db.query<{ n: number }>(sql)).rows[0]!.n;

describe('recognition v2: subject isolation and model provenance (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  let animalDid: string;
  const shots: Buffer[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'v2');
    for (const [shot, dx] of [
      [1, -30],
      [2, 0],
      [3, 30],
      [9, -10],
    ])
      shots.push(await animalScene({ coat: 7, shot: shot!, dx }));
    const r = await post(app, '/api/animal/enroll', owner.token, photoForm(shots.slice(0, 3), { species: 'cattle', farm_id: 'farm-v2' }));
    expect(r.status, r.text).toBe(200);
    animalDid = r.json.animal_did;
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('stores with every animal descriptor the models it came from and the animal box it described', async () => {
    const rows = await app.container.db.query<{
      model: string;
      model_version: string;
      models: { name: string; version: string }[];
      subject: any;
    }>('select model, model_version, models, subject from descriptors');
    expect(rows.rows).toHaveLength(3);
    for (const row of rows.rows) {
      expect(row.models.map((m) => m.name)).toEqual(['markless-texture', 'yolox-nano-coco', 'xfeat-backbone']);
      for (const m of row.models) expect(row.model_version).toContain(m.version);
      expect(row.subject.label).toMatch(/^(cat|dog|horse|sheep|cow|elephant|bear|zebra|giraffe)$/);
      expect(row.subject.score).toBeGreaterThan(0.2);
    }
    // The drawn animal moved by dx between shots; each stored box followed it.
    const boxes = rows.rows.map((r) => r.subject.box).sort((a, b) => a.x - b.x);
    [-30, 0, 30].forEach((dx, i) => expect(iou(boxes[i], { ...ANIMAL_BOUNDS, x: ANIMAL_BOUNDS.x + dx })).toBeGreaterThan(0.5));
  });

  it('identifies the animal from an unseen shot through XFeat', async () => {
    const r = await post(app, '/api/animal/identify', owner.token, photoForm([shots[3]!]));
    expect(r.status).toBe(200);
    expect(r.json.verdict).toBe('match');
    expect(r.json.match.animal_did).toBe(animalDid);
  });
  it('accepts an enrolment photo in which the detector finds no animal (a close-up), uses it whole, and names every refused photo in one answer', async () => {
    // A close-up of coat texture: the detector finds nothing, the photo is described whole (issue 24).
    const other = await signup(app.url, 'v2closeup');
    const closeUp = await textureImage(601);
    const r = await post(
      app,
      '/api/animal/enroll',
      other.token,
      photoForm([shots[0]!, shots[1]!, closeUp], { species: 'cattle', farm_id: 'farm-v2-b' }),
      'en',
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.images).toHaveLength(3);
    expect(r.json.images[2].subject).toBeNull();
    expect(r.json.images[0].subject.box.w).toBeGreaterThan(0);
    // Two bad photos in one request: both named, by index and file name, in one 422; nothing kept.
    const blobs = await count(app, 'select count(*)::int as n from blobs');
    const individuals = await count(app, 'select count(*)::int as n from individuals');
    const form = new FormData();
    form.append('species', 'cattle');
    form.append('farm_id', 'farm-v2');
    form.append('files', new Blob([shots[0]!], { type: 'image/jpeg' }), 'good.jpg');
    form.append('files', new Blob([shots[0]!], { type: 'image/jpeg' }), 'same-again.jpg');
    form.append(
      'files',
      new Blob(
        [
          await sharp({ create: { width: 32, height: 32, channels: 3, background: '#777' } })
            .png()
            .toBuffer(),
        ],
        { type: 'image/png' },
      ),
      'tiny.png',
    );
    const bad = await post(app, '/api/animal/enroll', other.token, form, 'en');
    expect(bad.status, bad.text).toBe(422);
    expect(bad.json).toMatchObject({ ok: false, code: 'photos_refused', detail: 'files', overridable: false });
    expect(bad.json.refused).toEqual([
      { index: 1, filename: 'same-again.jpg', reasons: ['identical'], warning: false },
      { index: 2, filename: 'tiny.png', reasons: expect.arrayContaining(['too_small']), warning: false },
    ]);
    expect(bad.json.error).toMatch(/same-again\.jpg.*tiny\.png/);
    expect(await count(app, 'select count(*)::int as n from blobs')).toBe(blobs);
    expect(await count(app, 'select count(*)::int as n from individuals')).toBe(individuals);
  }, 180_000);
});
