import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { detectableShots } from '../support/animal-shots.js';
import { photoForm } from '../support/images.js';
import { shippedCalibration } from '../../workers/src/vision/kind-calibration.js';

/** The animal flows that run in a worker (species detection, scan, 1:1 verify, deletion) in distributed mode: BullMQ, PostgreSQL, S3. */
let app: TestApp;
let token: string;
const did: Record<string, string> = {};
let query: Buffer;
let confident: Buffer;

beforeAll(async () => {
  app = await startTestApp({ mode: 'distributed' });
  token = (await signup(app.url, 'dist')).token;
  const shots = (await detectableShots(702, 4)).map((s) => s.photo);
  query = shots[3]!;
  confident = (await detectableShots(705, 1, { minScore: 0.6, label: 'elephant' }))[0]!.photo;
  const other = (await detectableShots(703, 3)).map((s) => s.photo);
  for (const [key, photos, species] of [
    ['a', shots.slice(0, 3), 'elephant'],
    ['b', other, 'horse'],
  ] as const) {
    const r = await api(app.url, 'POST', '/animal/enroll', { token, body: photoForm([...photos], { species, farm_id: 'd' }) });
    expect(r.status, r.text).toBe(200);
    did[key] = r.json.animal_did;
  }
}, 180_000);
afterAll(async () => {
  await app?.stop();
});

describe('animals in distributed mode', () => {
  it('detects in the worker, scans, verifies and deletes', async () => {
    const d = await api(app.url, 'POST', '/api/animal/detect', { token, body: photoForm([confident], { farm_id: 'd' }) });
    expect(d.status, d.text).toBe(200);
    expect(d.json).toMatchObject({ rule: 'detector', species: 'elephant', need_confirm: false, detector: { name: 'yolox-nano-coco' } });
    const s = await api(app.url, 'POST', '/animal/scan', { token, body: photoForm([query], { farm_id: 'd' }) });
    expect(s.status, s.text).toBe(200);
    // Elephants have no dataset of their own: the threshold that held for every species decides,
    // so the right animal comes first, a match only when it clears that threshold.
    expect(s.json.candidates[0]?.animal_did).toBe(did.a);
    expect(s.json.verdict).toBe(s.json.candidates[0].probability >= s.json.calibration.match_threshold ? 'match' : 'uncertain');
    const v = await api(app.url, 'POST', '/api/animal/verify', { token, body: photoForm([query], { animal_did: did.a! }) });
    const clears =
      v.json.probability >= shippedCalibration('animal', v.json.model.version, { species: 'elephant', individuals: 1 })!.matchThreshold;
    expect(v.json).toMatchObject({
      verdict: clears ? 'match' : 'uncertain',
      same: clears ? true : null,
      animal_did: did.a,
      candidate: { animal_did: did.a },
    });
    const del = await api(app.url, 'DELETE', `/animal/${did.a}`, { token });
    expect(del.status, del.text).toBe(200);
    const after = await api(app.url, 'POST', '/api/animal/identify', { token, body: photoForm([query]) });
    expect(after.json.candidates.map((c: { animal_did: string }) => c.animal_did)).not.toContain(did.a);
  });

  it('names every refused photo through the queue, shows the closest animals, and "this one" is recorded in the chain (issue 24)', async () => {
    const one = query;
    const form = new FormData();
    for (const [k, v] of Object.entries({ species: 'elephant', farm_id: 'd' })) form.append(k, v);
    for (const name of ['x.jpg', 'x-again.jpg', 'x-third.jpg'])
      form.append('files', new Blob([new Uint8Array(one)], { type: 'image/jpeg' }), name);
    const bad = await api(app.url, 'POST', '/animal/enroll', { token, body: form });
    expect(bad.status).toBe(422);
    expect(bad.json.refused.map((r: { index: number; filename: string }) => [r.index, r.filename])).toEqual([
      [1, 'x-again.jpg'],
      [2, 'x-third.jpg'],
    ]);
    const r = await api(app.url, 'POST', '/api/animal/identify', { token, body: photoForm([query]) });
    expect(r.status).toBe(200);
    // `a` was deleted above: `b` is the one animal left, shown with its photos whatever the verdict.
    expect(r.json.closest.map((x: { animal_did: string }) => x.animal_did)).toEqual([did.b]);
    expect(r.json.closest[0].photos).toHaveLength(3);
    const c = new FormData();
    c.append('query_id', r.json.query_id);
    c.append('animal_did', did.b!);
    const ok = await api(app.url, 'POST', '/api/animal/confirm', { token, body: c });
    expect(ok.status, ok.text).toBe(200);
    const t = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did.b!)}/timeline`, { token });
    expect(t.json.events.map((e: { body: { type: string } }) => e.body.type)).toEqual(['enroll', 'identification_confirmed']);
  }, 120_000);
});
