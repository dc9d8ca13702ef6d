/**
 * Issue 24: the review queue lists the identify answers still awaiting a decision (uncertain, or
 * no_match with closest individuals shown, unlabelled), owner-scoped and paged; a decision
 * (identify_verdict or enrol-as-new with the query_id) takes the query off.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm } from '../support/images.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';

const shots = (coat: number, from: number, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => animalScene({ coat, shot: from + i, dx: (i - 1) * 25 })));
const pending = (r: { verdict: string; closest?: unknown[] }) =>
  r.verdict === 'uncertain' || (r.verdict === 'no_match' && (r.closest?.length ?? 0) > 0);

describe('review queue (embedded)', () => {
  let app: TestApp;
  let owner: { token: string; id: string };

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'queue');
    for (const coat of [7, 21]) {
      const r = await api(app.url, 'POST', '/api/animal/enroll', {
        token: owner.token,
        body: photoForm(await shots(coat, 1, 3), { species: 'cattle', farm_id: 'barn', name: `cow-${coat}` }),
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
    }
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('lists undecided answers (paged, owner-scoped) and a decision takes each off', async () => {
    const queue = (token: string, qs = '') => api(app.url, 'GET', `/api/review/queue${qs}`, { token });
    expect((await queue(owner.token)).json).toMatchObject({ ok: true, items: [], total: 0 });

    // A stranger cow: no_match (or uncertain), shown with the closest animals.
    const [stranger] = await shots(49, 1, 1);
    const q1 = await api(app.url, 'POST', '/api/animal/identify', { token: owner.token, body: photoForm([stranger!]) });
    expect(q1.status).toBe(200);
    expect(pending(q1.json), JSON.stringify(q1.json.verdict)).toBe(true);
    const [known] = await shots(7, 9, 1);
    const q2 = await api(app.url, 'POST', '/api/animal/identify', { token: owner.token, body: photoForm([known!]) });
    expect(q2.status).toBe(200);
    // A no_match that showed nobody has nothing to decide: not queued.
    await app.container.db.query(
      `insert into identify_queries (id, owner_id, kind, image_cids, result) values ($1, $2, 'fruit', '{}', $3)`,
      [randomUUID(), owner.id, { verdict: 'no_match', candidates: [], closest: [] }],
    );

    const want = [q1.json, q2.json].filter(pending).map((q) => q.query_id as string);
    const all = await queue(owner.token);
    expect(all.status).toBe(200);
    expect(all.json.total).toBe(want.length);
    expect(all.json.items.map((i: { query_id: string }) => i.query_id).sort()).toEqual([...want].sort());
    const item = all.json.items.find((i: { query_id: string }) => i.query_id === q1.json.query_id);
    expect(item).toMatchObject({ kind: 'animal', verdict: q1.json.verdict, source: 'photos' });
    expect(item.closest.length).toBeGreaterThan(0);
    expect(item.closest[0].photos[0].url).toMatch(/^\/api\/blobs\//);
    expect(item.photos).toHaveLength(1);
    const photo = await fetch(`${app.url}${item.photos[0].url}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(photo.status).toBe(200);
    expect((await photo.arrayBuffer()).byteLength).toBeGreaterThan(100);

    if (want.length > 1) {
      const page = await queue(owner.token, '?limit=1&offset=1');
      expect(page.json).toMatchObject({ total: want.length, limit: 1, offset: 1 });
      expect(page.json.items).toHaveLength(1);
      expect(page.json.items[0].query_id).toBe(all.json.items[1].query_id);
    }
    expect((await queue(owner.token, '?kind=tree')).json.total).toBe(0);

    // Another account sees none of it; no token is 401; a bad page size is 422.
    const other = await signup(app.url, 'otherq');
    expect((await queue(other.token)).json).toMatchObject({ items: [], total: 0 });
    expect((await api(app.url, 'GET', '/api/review/queue')).status).toBe(401);
    expect((await queue(owner.token, '?limit=0')).status).toBe(422);

    // "None of these → enrol as new" decides q1.
    const e = await api(app.url, 'POST', '/api/animal/enroll', {
      token: owner.token,
      body: photoForm(await shots(49, 2, 2), { species: 'cattle', farm_id: 'barn', query_id: q1.json.query_id, accept_warnings: 'true' }),
    });
    expect(e.status, JSON.stringify(e.json)).toBe(200);
    let after = await queue(owner.token);
    expect(after.json.items.map((i: { query_id: string }) => i.query_id)).not.toContain(q1.json.query_id);
    expect(after.json.total).toBe(want.length - 1);
    if (want.includes(q2.json.query_id)) {
      const v = await api(app.url, 'POST', '/api/animal/identify_verdict', {
        token: owner.token,
        form: { query_id: q2.json.query_id, verdict: 'wrong' },
      });
      expect(v.status, JSON.stringify(v.json)).toBe(200);
      after = await queue(owner.token);
    }
    expect(after.json.total).toBe(0);
  }, 240_000);

  it('is in the OpenAPI document', async () => {
    const doc = await api(app.url, 'GET', '/openapi.json');
    const op = doc.json.paths['/api/review/queue'].get;
    expect(op.responses['200']).toBeTruthy();
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['kind', 'limit', 'offset']);
  });
});
