/** Issue 24: GET /api/fruit lists the owner's fruit with thumbnails, names and tree codes; filters by tree (id or code) and farm; paged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';

describe('fruit list (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  let tree: { tree_id: string; code: string };
  const fruit: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    owner = await signup(app.url, 'fruitlist');
    const t = await api(app.url, 'POST', '/api/enroll', {
      token: owner.token,
      body: photoForm([await textureImage(5101, 320)], { species: 'durian', name: 'Sầu riêng số 3' }),
    });
    expect(t.status, JSON.stringify(t.json)).toBe(200);
    tree = { tree_id: t.json.tree_id, code: t.json.code };
    for (const [i, extra] of (
      [
        { tree_id: tree.code, name: 'Quả A' },
        { tree_id: tree.tree_id, name: 'Quả B' },
        { farm_id: 'vuon-2', name: 'Quả C' },
      ] as Record<string, string>[]
    ).entries()) {
      const e = await api(app.url, 'POST', '/api/fruit/enroll', {
        token: owner.token,
        body: photoForm([await textureImage(5110 + i, 320)], extra),
      });
      expect(e.status, JSON.stringify(e.json)).toBe(200);
      fruit.push(e.json.fruit_id);
    }
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("lists the owner's fruit newest first with cover, name and tree name and code", async () => {
    const r = await api(app.url, 'GET', '/api/fruit', { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.json.total).toBe(3);
    expect(r.json.fruit.map((f: { fruit_id: string }) => f.fruit_id)).toEqual([...fruit].reverse());
    const a = r.json.fruit.find((f: { fruit_id: string }) => f.fruit_id === fruit[0]);
    expect(a).toMatchObject({ name: 'Quả A', image_count: 1, tree: { tree_id: tree.tree_id, name: 'Sầu riêng số 3', code: tree.code } });
    const c = r.json.fruit.find((f: { fruit_id: string }) => f.fruit_id === fruit[2]);
    expect(c).toMatchObject({ name: 'Quả C', farm_id: 'vuon-2', tree: null });
    const thumb = await fetch(`${app.url}${a.cover.url}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toMatch(/^image\//);
  });

  it('filters by tree (id or printed code, any case) and farm, and pages', async () => {
    for (const ref of [tree.tree_id, tree.code.toLowerCase()]) {
      const r = await api(app.url, 'GET', `/api/fruit?tree_id=${encodeURIComponent(ref)}`, { token: owner.token });
      expect(r.status).toBe(200);
      expect(r.json.fruit.map((f: { fruit_id: string }) => f.fruit_id).sort()).toEqual([fruit[0], fruit[1]].sort());
    }
    expect(
      (await api(app.url, 'GET', '/api/fruit?farm_id=vuon-2', { token: owner.token })).json.fruit.map(
        (f: { fruit_id: string }) => f.fruit_id,
      ),
    ).toEqual([fruit[2]]);
    const page = await api(app.url, 'GET', '/api/fruit?limit=1&offset=1', { token: owner.token });
    expect(page.json).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.json.fruit.map((f: { fruit_id: string }) => f.fruit_id)).toEqual([fruit[1]]);
    // One fruit by id (its page): that row alone.
    const one = await api(app.url, 'GET', `/api/fruit?fruit_id=${fruit[1]}`, { token: owner.token });
    expect(one.json).toMatchObject({ total: 1 });
    expect(one.json.fruit.map((f: { fruit_id: string }) => f.fruit_id)).toEqual([fruit[1]]);
    expect((await api(app.url, 'GET', '/api/fruit?fruit_id=not-a-uuid', { token: owner.token })).status).toBe(422);
    expect((await api(app.url, 'GET', '/api/fruit?limit=0', { token: owner.token })).status).toBe(422);
    expect((await api(app.url, 'GET', '/api/fruit')).status).toBe(401);
  });

  it('shows nothing of another account; their tree is the same 404 as a tree that does not exist', async () => {
    const stranger = await signup(app.url, 'fruitstranger');
    expect((await api(app.url, 'GET', '/api/fruit', { token: stranger.token })).json).toMatchObject({ fruit: [], total: 0 });
    // Their fruit by id is answered exactly like a fruit that does not exist.
    const theirFruit = await api(app.url, 'GET', `/api/fruit?fruit_id=${fruit[0]}`, { token: stranger.token });
    const noFruit = await api(app.url, 'GET', '/api/fruit?fruit_id=00000000-0000-4000-8000-000000000000', { token: stranger.token });
    expect(theirFruit.status).toBe(200);
    expect(theirFruit.text).toBe(noFruit.text);
    expect(theirFruit.json).toMatchObject({ fruit: [], total: 0 });
    for (const lang of ['vi', 'en']) {
      const headers = { 'accept-language': lang };
      const theirs = await api(app.url, 'GET', `/api/fruit?tree_id=${encodeURIComponent(tree.code)}`, { token: stranger.token, headers });
      const theirsById = await api(app.url, 'GET', `/api/fruit?tree_id=${tree.tree_id}`, { token: stranger.token, headers });
      const missing = await api(app.url, 'GET', '/api/fruit?tree_id=NO-SUCH-CODE', { token: stranger.token, headers });
      const missingId = await api(app.url, 'GET', '/api/fruit?tree_id=00000000-0000-4000-8000-000000000000', {
        token: stranger.token,
        headers,
      });
      expect(theirs.status).toBe(404);
      const strip = (j: Record<string, unknown>) => ({ ...j, request_id: 0 });
      expect(strip(theirs.json)).toEqual(strip(missing.json));
      expect(strip(theirsById.json)).toEqual(strip(missingId.json));
      expect(strip(theirs.json)).toEqual(strip(missingId.json));
      expect(String(theirs.json.error)).toMatch(/[.!]$/);
    }
  });
});
