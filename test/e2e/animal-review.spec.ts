/**
 * Review and identity hygiene for animals (issue 24): the closest individuals with photos and
 * match lines on every verdict, "this one" adds the photo and records it, "none of these" enrols
 * a new animal keeping the query photo, duplicates warn, merges are recorded, and an animal's
 * chain holds its enrolment and the owner's events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm } from '../support/images.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';

const post = (app: TestApp, path: string, token: string, form: FormData) => api(app.url, 'POST', path, { token, body: form });
const shots = (coat: number, from: number, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => animalScene({ coat, shot: from + i, dx: (i - 1) * 25 })));
const types = (t: { events: { body: { type?: string } }[] }) => t.events.map((e) => e.body.type);

describe('animal review, timeline and identity hygiene (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  const did: Record<string, string> = {};

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'herdrev');
    for (const coat of [7, 21, 35]) {
      const r = await post(
        app,
        '/api/animal/enroll',
        owner.token,
        photoForm(await shots(coat, 1, 3), { species: 'cattle', farm_id: 'barn', name: `cow-${coat}` }),
      );
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      did[coat] = r.json.animal_did;
    }
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("records the enrolment in the animal's chain", async () => {
    const t = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[7]!)}/timeline`, { token: owner.token });
    expect(t.status).toBe(200);
    expect(t.json.chain_ok).toBe(true);
    expect(types(t.json)).toEqual(['enroll']);
    expect(t.json.events[0].body).toMatchObject({ type: 'enroll', animal_did: did[7], species: 'cattle', farm_id: 'barn', name: 'cow-7' });
    expect(t.json.events[0].body.images).toHaveLength(3);
  });

  it('identify shows the closest animals with photos and match lines; "this one" adds the photo and the chain records it', async () => {
    const [query] = await shots(7, 9, 1);
    const r = await post(app, '/api/animal/identify', owner.token, photoForm([query!]));
    expect(r.status).toBe(200);
    expect(r.json.closest).toHaveLength(3);
    expect(r.json.closest[0]).toMatchObject({ rank: 1, animal_did: did[7] });
    for (const c of r.json.closest) {
      expect(c.photos).toHaveLength(3);
      expect(c.photos[0].url).toBe(`/api/blobs/${c.photos[0].cid}`);
    }
    const lines = r.json.closest[0].match_lines;
    expect(lines.image_id).toBe(r.json.closest[0].photos[0].image_id);
    expect(lines.query.length).toBeGreaterThan(8);
    expect(lines.candidate).toHaveLength(lines.query.length);
    for (const [x, y] of [...lines.query, ...lines.candidate]) expect(x >= 0 && x <= 1 && y >= 0 && y <= 1).toBe(true);
    const blob = await fetch(`${app.url}${r.json.closest[0].photos[0].url}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(blob.status).toBe(200);

    const form = new FormData();
    form.append('query_id', r.json.query_id);
    form.append('animal_did', did[7]!);
    const ok = await post(app, '/api/animal/confirm', owner.token, form);
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.verdict).toBe('correct');
    const a = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[7]!)}`, { token: owner.token });
    expect(a.json.image_count).toBe(4);
    const t = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[7]!)}/timeline`, { token: owner.token });
    expect(types(t.json)).toEqual(['enroll', 'identification_confirmed']);
    expect(t.json.events[1].body).toMatchObject({ query_id: r.json.query_id, source: 'confirm' });
    const label = await app.container.db.query<{ verdict: string; correct_id: string }>(
      'select verdict, correct_id from identify_verdicts where query_id = $1',
      [r.json.query_id],
    );
    expect(label.rows[0]).toMatchObject({ verdict: 'correct' });
    // Confirming twice adds nothing.
    await post(app, '/api/animal/confirm', owner.token, form);
    expect((await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[7]!)}`, { token: owner.token })).json.image_count).toBe(4);
  }, 120_000);

  it('"none of these" enrols a new animal that keeps the query photo', async () => {
    const [query, ...more] = await shots(49, 1, 3);
    const r = await post(app, '/api/animal/identify', owner.token, photoForm([query!]));
    expect(r.status).toBe(200);
    expect(r.json.closest.length).toBeGreaterThanOrEqual(3);
    const form = photoForm(more, { species: 'cattle', farm_id: 'barn', name: 'newcomer', query_id: r.json.query_id });
    const e = await post(app, '/api/animal/enroll', owner.token, form);
    expect(e.status, JSON.stringify(e.json)).toBe(200);
    expect(e.json.images).toHaveLength(3);
    const queryRow = await app.container.db.query<{ image_cids: string[] }>('select image_cids from identify_queries where id = $1', [
      r.json.query_id,
    ]);
    expect(e.json.images.map((i: { cid: string }) => i.cid)).toContain(queryRow.rows[0]!.image_cids[0]);
    const label = await app.container.db.query<{ correct_id: string }>('select correct_id from identify_verdicts where query_id = $1', [
      r.json.query_id,
    ]);
    expect(label.rows[0]!.correct_id).toBe(e.json.individual_id);
  }, 120_000);

  it('adds photos to an animal, with the chain recording it; another account gets 404', async () => {
    const [extra] = await shots(21, 12, 1);
    const r = await post(app, `/api/animal/${encodeURIComponent(did[21]!)}/photos`, owner.token, photoForm([extra!]));
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const t = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[21]!)}/timeline`, { token: owner.token });
    expect(types(t.json)).toEqual(['enroll', 'photos_added']);
    const stranger = await signup(app.url, 'stranger');
    const no = await post(app, `/api/animal/${encodeURIComponent(did[21]!)}/photos`, stranger.token, photoForm([extra!]));
    expect(no.status).toBe(404);
  }, 120_000);

  it('warns before enrolling photos that already show an animal, and merges two animals with the merge in the chain', async () => {
    const again = await shots(35, 1, 3);
    const warn = await post(app, '/api/animal/enroll', owner.token, photoForm(again, { species: 'cattle', farm_id: 'barn' }));
    expect(warn.status).toBe(422);
    expect(warn.json).toMatchObject({ code: 'already_enrolled', overridable: true, existing: { animal_did: did[35] } });
    const before = (await app.container.db.query<{ n: number }>(`select count(*)::int as n from individuals where deleted_at is null`))
      .rows[0]!.n;
    // Other views of the same animal, enrolled anyway: a second record of one cow.
    const dup = photoForm(await shots(35, 5, 3), { species: 'cattle', farm_id: 'barn', accept_warnings: 'true' });
    const second = await post(app, '/api/animal/enroll', owner.token, dup);
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    expect(
      (await app.container.db.query<{ n: number }>(`select count(*)::int as n from individuals where deleted_at is null`)).rows[0]!.n,
    ).toBe(before + 1);

    const form = new FormData();
    form.append('into', did[35]!);
    form.append('from', second.json.animal_did);
    const m = await post(app, '/api/animal/merge', owner.token, form);
    expect(m.status, JSON.stringify(m.json)).toBe(200);
    expect(m.json.photos_moved).toBe(3);
    const a = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[35]!)}`, { token: owner.token });
    expect(a.json.image_count).toBe(6);
    expect((await api(app.url, 'GET', `/api/animal/${encodeURIComponent(second.json.animal_did)}`, { token: owner.token })).status).toBe(
      404,
    );
    const t = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[35]!)}/timeline`, { token: owner.token });
    expect(t.json.chain_ok).toBe(true);
    expect(types(t.json)).toEqual(['enroll', 'merged']);
    expect(t.json.events[1].body).toMatchObject({
      from: second.json.animal_did,
      photos_moved: 3,
      from_events: [{ seq: 0, type: 'enroll' }],
    });
    // The merged photos identify as the kept animal.
    const [q] = await shots(35, 7, 1);
    const id = await post(app, '/api/animal/identify', owner.token, photoForm([q!]));
    expect(id.json.closest[0].animal_did).toBe(did[35]);
    expect(id.json.closest.map((c: { animal_did: string }) => c.animal_did)).not.toContain(second.json.animal_did);
  }, 240_000);

  it("owners add care events (vaccination, calving, treatment) to an animal's chain", async () => {
    for (const type of ['vaccination', 'calving', 'treatment']) {
      const r = await api(app.url, 'POST', `/api/animal/${encodeURIComponent(did[21]!)}/event`, {
        token: owner.token,
        json: { type, note: `${type} note` },
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
    }
    // A retry with the same Idempotency-Key (a lost answer, the app's offline queue) is not a second event.
    const path = `/api/animal/${encodeURIComponent(did[21]!)}/event`;
    const headers = { 'idempotency-key': 'retry-me-1' };
    const first = await api(app.url, 'POST', path, { token: owner.token, json: { type: 'weighing', kg: 400 }, headers });
    const again = await api(app.url, 'POST', path, { token: owner.token, json: { type: 'weighing', kg: 400 }, headers });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    const elsewhere = await api(app.url, 'POST', `/api/animal/${encodeURIComponent(did[7]!)}/event`, {
      token: owner.token,
      json: { type: 'weighing' },
      headers,
    });
    expect(elsewhere.status).toBe(422);
    const t = await api(app.url, 'GET', `/api/animal/${encodeURIComponent(did[21]!)}/timeline`, { token: owner.token });
    expect(types(t.json)).toEqual(['enroll', 'photos_added', 'vaccination', 'calving', 'treatment', 'weighing']);
    expect(t.json.chain_ok).toBe(true);
  });
});
