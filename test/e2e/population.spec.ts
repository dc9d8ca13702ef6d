import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { detectableShots } from '../support/animal-shots.js';
import { photoForm, textureImage } from '../support/images.js';

const FARM = 'farm-pop';

/** Enrol one animal (coat `seed`) from three generated field shots; returns its id and an unseen query shot. */
async function enrolAnimal(app: TestApp, token: string, seed: number, fields: Record<string, string>) {
  const shots = (await detectableShots(seed, 4)).map((s) => s.photo);
  const r = await api(app.url, 'POST', '/api/animal/enroll', {
    token,
    body: photoForm(shots.slice(0, 3), { species: 'cattle', farm_id: FARM, ...fields }),
  });
  expect(r.status, r.text).toBe(200);
  return { id: r.json.individual_id as string, did: r.json.animal_did as string, query: shots[3]! };
}

describe('population counts and alerts', () => {
  let app: TestApp;
  let owner: { token: string };
  let stranger: { token: string };
  let a: Awaited<ReturnType<typeof enrolAnimal>>;
  let b: Awaited<ReturnType<typeof enrolAnimal>>;
  const count = (token: string, json: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api(app.url, 'POST', '/api/population/count', { token, json: { farm_id: FARM, method: 'visual', ...json }, headers });
  const sql = (text: string, params: unknown[]) => app.container.db.query(text, params);

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'herder');
    stranger = await signup(app.url, 'stranger');
    a = await enrolAnimal(app, owner.token, 811, { zone: 'north', name: 'Bông' });
    b = await enrolAnimal(app, owner.token, 812, { zone: 'north', name: 'Mực' });
    await enrolAnimal(app, owner.token, 813, { zone: 'south' });
  }, 240_000);
  afterAll(async () => app?.stop());

  it("is the farm owner's only: 401 without a token, the same 404 for a stranger as for no farm, 422 on a bad body", async () => {
    expect(
      (await api(app.url, 'POST', '/api/population/count', { json: { farm_id: FARM, zone: 'north', count: 2, method: 'visual' } })).status,
    ).toBe(401);
    for (const farm of [FARM, 'no-such-farm']) {
      const r = await api(app.url, 'POST', '/api/population/count', {
        token: stranger.token,
        json: { farm_id: farm, zone: 'north', count: 2, method: 'visual' },
      });
      expect(r.status).toBe(404);
      expect((await api(app.url, 'GET', `/api/population/farm/${farm}`, { token: stranger.token })).status).toBe(404);
      expect((await api(app.url, 'GET', `/api/population/alerts/${farm}`, { token: stranger.token })).status).toBe(404);
    }
    const bad = await count(owner.token, { zone: 'north', count: -1 });
    expect(bad.status).toBe(422);
    expect(bad.json.detail).toBe('count');
    const rows = await sql('select count(*)::int as n from population_counts', []);
    expect(rows.rows[0]).toEqual({ n: 0 });
  });

  it('raises below_enrolled when a zone counts fewer head than are enrolled in it', async () => {
    // The zone's first count: no baseline yet, so only the enrolled head can raise anything.
    const low = await count(owner.token, { zone: 'north', count: 1 }, { 'accept-language': 'en' });
    expect(low.status, low.text).toBe(200);
    expect(low.json).toMatchObject({ enrolled: 2, count: 1, baseline: null });
    expect(low.json.alerts).toHaveLength(1);
    expect(low.json.alerts[0]).toMatchObject({
      rule: 'below_enrolled',
      zone: 'north',
      facts: { counted: 1, enrolled: 2, missing: 1 },
      resolved_at: null,
    });
    expect(low.json.alerts[0].message).toBe('Zone north counted 1 head, fewer than the 2 enrolled: 1 may be missing.');
    const stored = await sql('select rule, count_id from population_alerts where id = $1', [low.json.alerts[0].alert_id]);
    expect(stored.rows[0]).toEqual({ rule: 'below_enrolled', count_id: low.json.count_id });
    const ok = await count(owner.token, { zone: 'north', count: 2 });
    expect(ok.json).toMatchObject({ enrolled: 2, count: 2, baseline: 1, alerts: [] });
  });

  it("raises sudden_drop against the median of the zone's recent counts, not for a small dip", async () => {
    for (const n of [10, 11, 10]) expect((await count(owner.token, { zone: 'south', count: n })).json.alerts).toEqual([]);
    const dip = await count(owner.token, { zone: 'south', count: 9 });
    expect(dip.json).toMatchObject({ baseline: 10, alerts: [] });
    const drop = await count(owner.token, { zone: 'south', count: 7 });
    expect(drop.json.baseline).toBe(10);
    expect(drop.json.alerts.map((x: { rule: string }) => x.rule)).toEqual(['sudden_drop']);
    expect(drop.json.alerts[0].facts).toMatchObject({ counted: 7, baseline: 10 });
    expect(drop.json.alerts[0].message).toMatch(/^Vùng south đếm được 7 con/);
  });

  it('raises not_seen for an animal no stored identify result has named for N days, once while open', async () => {
    // Both animals were enrolled 10 days ago; `a` is then re-identified today through the real route.
    await sql(`update individuals set created_at = now() - interval '10 days' where id = any($1::uuid[])`, [[a.id, b.id]]);
    const idr = await api(app.url, 'POST', '/api/animal/identify', { token: owner.token, body: photoForm([a.query], { farm_id: FARM }) });
    expect(idr.json.verdict, idr.text).toBe('match');
    expect(idr.json.match.individual_id).toBe(a.id);
    const r = await count(owner.token, { zone: 'north', count: 2, stale_after_days: 7 });
    expect(r.json.alerts).toHaveLength(1);
    expect(r.json.alerts[0]).toMatchObject({
      rule: 'not_seen',
      animal_did: b.did,
      facts: { name: 'Mực', days_unseen: 10, stale_after_days: 7 },
    });
    // Within a longer allowance nobody is stale; and an open not_seen alert is not raised twice.
    expect((await count(owner.token, { zone: 'north', count: 2, stale_after_days: 30 })).json.alerts).toEqual([]);
    expect((await count(owner.token, { zone: 'north', count: 2, stale_after_days: 7 })).json.alerts).toEqual([]);
    // An old identify result does not count as recent: age a's query and it goes stale too.
    await sql(
      `update identify_queries set created_at = now() - interval '9 days' where owner_id = (select owner_id from individuals where id = $1)`,
      [a.id],
    );
    const again = await count(owner.token, { zone: 'north', count: 2, stale_after_days: 7 });
    expect(again.json.alerts.map((x: { animal_did: string }) => x.animal_did)).toEqual([a.did]);
    expect(again.json.alerts[0].facts.days_unseen).toBe(9);
  });

  it('lists unresolved alerts of the last 48 hours only; resolving removes one; strangers get 404', async () => {
    const before = await api(app.url, 'GET', `/api/population/alerts/${FARM}`, { token: owner.token });
    expect(before.status).toBe(200);
    expect(before.json.window_hours).toBe(48);
    const rules = before.json.alerts.map((x: { rule: string }) => x.rule).sort();
    expect(rules).toEqual(['below_enrolled', 'not_seen', 'not_seen', 'sudden_drop']);
    const [drop] = before.json.alerts.filter((x: { rule: string }) => x.rule === 'sudden_drop');
    const [low] = before.json.alerts.filter((x: { rule: string }) => x.rule === 'below_enrolled');
    // 47 hours old is still inside the window; 49 hours old is not.
    await sql(`update population_alerts set created_at = now() - interval '47 hours' where id = $1`, [drop.alert_id]);
    await sql(`update population_alerts set created_at = now() - interval '49 hours' where id = $1`, [low.alert_id]);
    const windowed = await api(app.url, 'GET', `/api/population/alerts/${FARM}`, { token: owner.token });
    const ids = windowed.json.alerts.map((x: { alert_id: string }) => x.alert_id);
    expect(ids).toContain(drop.alert_id);
    expect(ids).not.toContain(low.alert_id);
    expect(windowed.json.alerts).toHaveLength(3);

    expect(
      (await api(app.url, 'POST', `/api/population/alerts/${drop.alert_id}/resolve`, { token: stranger.token, json: {} })).status,
    ).toBe(404);
    expect((await api(app.url, 'POST', '/api/population/alerts/not-a-uuid/resolve', { token: owner.token, json: {} })).status).toBe(404);
    const res = await api(app.url, 'POST', `/api/population/alerts/${drop.alert_id}/resolve`, {
      token: owner.token,
      json: { note: 'two calves sold' },
    });
    expect(res.status).toBe(200);
    expect(res.json.alert).toMatchObject({ alert_id: drop.alert_id, resolved_note: 'two calves sold' });
    expect(Date.parse(res.json.alert.resolved_at)).not.toBeNaN();
    const after = await api(app.url, 'GET', `/api/population/alerts/${FARM}`, { token: owner.token });
    expect(after.json.alerts.map((x: { alert_id: string }) => x.alert_id)).not.toContain(drop.alert_id);
    expect(after.json.alerts).toHaveLength(2);
  });

  it("shows the dashboard: total head from each zone's latest count, and each zone's status", async () => {
    const d = await api(app.url, 'GET', `/api/population/farm/${FARM}`, { token: owner.token });
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({ farm_id: FARM, enrolled_head: 3, total_head: 9 });
    const byZone = Object.fromEntries(d.json.zones.map((z: { zone: string }) => [z.zone, z]));
    expect(byZone.north).toMatchObject({ latest_count: 2, enrolled: 2, status: 'alert', open_alerts: 2 });
    expect(byZone.south).toMatchObject({ latest_count: 7, enrolled: 1, status: 'ok', open_alerts: 0 });
  });

  it('stores photos with a count (multipart) and refuses photos mixed with a video, leaving no blob behind', async () => {
    const photo = await textureImage(820, 256);
    const r = await api(app.url, 'POST', '/api/population/count', {
      token: owner.token,
      body: photoForm([photo], { farm_id: FARM, zone: 'barn', count: '0', method: 'photo' }),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.media).toHaveLength(1);
    const blob = await api(app.url, 'GET', `/api/blobs/${r.json.media[0].cid}`, { token: owner.token });
    expect(blob.status).toBe(200);
    const blobs = async () => (await sql('select count(*)::int as n from blobs', [])).rows[0];
    const n = await blobs();
    const form = photoForm([await textureImage(821, 256)], { farm_id: FARM, zone: 'barn', count: '1', method: 'video' });
    form.append(
      'files',
      new Blob([Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypisom'), Buffer.alloc(64)])], { type: 'video/mp4' }),
      'clip.mp4',
    );
    const mixed = await api(app.url, 'POST', '/api/population/count', { token: owner.token, body: form });
    expect(mixed.status).toBe(422);
    expect(await blobs()).toEqual(n);
  });
});
