import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

type User = { token: string; id: string };

async function enrollTree(app: TestApp, user: User, photos: Buffer[], fields: Record<string, string>): Promise<string> {
  const r = await fetch(`${app.url}/api/enroll`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: photoForm(photos, fields),
  });
  const json = (await r.json()) as any;
  expect(r.status, JSON.stringify(json)).toBe(200);
  return json.tree_id;
}

describe('tree lists, views with measured descriptions, and rename', () => {
  let app: TestApp;
  let owner: User;
  let stranger: User;
  /** Three photos of one bark surface: re-shot views that should repeat well. */
  let steady: string;
  /** Three photos of three different surfaces under one id: nothing should repeat. */
  let mixed: string;
  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'trees');
    stranger = await signup(app.url, 'trees');
    const base = await textureImage(1100, 384);
    steady = await enrollTree(app, owner, [base, await otherView(base, 1), await otherView(base, 2)], {
      farm_id: 'north',
      species: 'durian',
      name: 'steady',
    });
    const unrelated = await Promise.all([1201, 1302, 1403].map((s) => textureImage(s, 384)));
    mixed = await enrollTree(app, owner, unrelated, { farm_id: 'south', species: 'durian', name: 'mixed' });
    await enrollTree(app, stranger, [await textureImage(1500, 320)], { farm_id: 'north' });
  });
  afterAll(async () => app?.stop());

  it("lists only the caller's trees, filtered by farm_id when given", async () => {
    const all = await api(app.url, 'GET', '/api/trees', { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.json.trees.map((t: any) => t.tree_id)).toEqual([steady, mixed]);
    expect(all.json.trees[0]).toMatchObject({
      farm_id: 'north',
      species: 'durian',
      name: 'steady',
      access: 'owner',
      visibility: 'private',
      image_count: 3,
    });
    const north = await api(app.url, 'GET', '/api/trees?farm_id=north', { token: owner.token });
    expect(north.json).toMatchObject({ ok: true, count: 1, trees: [{ tree_id: steady }] });
    const none = await api(app.url, 'GET', '/api/trees?farm_id=nowhere', { token: owner.token });
    expect(none.json).toMatchObject({ ok: true, count: 0, trees: [] });
    expect((await api(app.url, 'GET', '/api/trees')).status).toBe(401);
  });

  it('describes each tree from its own measured repeatability, never from fixed values', async () => {
    const a = await api(app.url, 'GET', `/api/tree_views?tree_id=${steady}&describe=1`, { token: owner.token });
    const b = await api(app.url, 'GET', `/api/tree_views?tree_id=${mixed}&describe=1`, { token: owner.token });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ ok: true, tree_id: steady, count: 3, views_measured: 3 });
    const regions = (r: any) => r.json.features.filter((f: any) => f.part !== 'overall');
    expect(regions(a).map((f: any) => f.part)).toEqual(['upper', 'middle', 'lower']);
    // Re-shot views of one surface repeat; unrelated surfaces do not, in every region.
    expect(regions(a).some((f: any) => f.band === 'cao')).toBe(true);
    expect(regions(a).every((f: any) => f.band !== 'thấp')).toBe(true);
    expect(regions(b).map((f: any) => f.band)).toEqual(['thấp', 'thấp', 'thấp']);
    for (const f of regions(a)) expect(f.score).toBeGreaterThan(Math.max(...regions(b).map((g: any) => g.score)) + 0.2);
    expect(a.json.features_vi).toMatch(/cao/);
    expect(b.json.features_vi).toMatch(/thấp/);
    expect(a.json.features_vi).not.toBe(b.json.features_vi);
    // Views never carry embeddings, and describe is only computed when asked for.
    expect(a.text).not.toMatch(/"global"|"local"/);
    const plain = await api(app.url, 'GET', `/api/tree_views?tree_id=${steady}`, { token: owner.token });
    expect(plain.json.features_vi).toBeUndefined();
    expect(plain.json.views).toHaveLength(3);
  });

  it('says it cannot measure a tree with a single photo', async () => {
    const single = await enrollTree(app, owner, [await textureImage(1600, 320)], { farm_id: 'east' });
    const r = await api(app.url, 'GET', `/api/tree_views?tree_id=${single}&describe=1`, { token: owner.token });
    expect(r.json.features).toEqual([]);
    expect(r.json.features_vi).toMatch(/ít nhất 2 ảnh/);
  });

  it('sanitises names, and answers 200 ok:false when nothing is left', async () => {
    const r = await api(app.url, 'POST', '/api/rename', {
      token: owner.token,
      form: { tree_id: steady, name: '  <b>Cây\u200b  số\t1</b>\u0007 ' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, tree_id: steady, name: 'Cây số 1' });
    const empty = await api(app.url, 'POST', '/api/rename', {
      token: owner.token,
      form: { tree_id: steady, name: ' <br>\u200b\t\u202e ' },
    });
    expect(empty.status).toBe(200);
    expect(empty.json).toMatchObject({ ok: false, code: 'rename_empty', detail: 'name', error: expect.any(String) });
    const list = await api(app.url, 'GET', '/api/trees?farm_id=north', { token: owner.token });
    expect(list.json.trees[0].name).toBe('Cây số 1');
    const long = await api(app.url, 'POST', '/api/rename', { token: owner.token, json: { tree_id: steady, name: 'ă'.repeat(300) } });
    expect([...long.json.name]).toHaveLength(100);
  });

  it("answers 401 without a token and the same 404 for another account's tree as for a missing one", async () => {
    expect((await api(app.url, 'POST', '/api/rename', { form: { tree_id: steady, name: 'x' } })).status).toBe(401);
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, form] of [
      ['POST', '/api/rename', { tree_id: steady, name: 'mine now' }],
      ['GET', `/api/tree_views?tree_id=${steady}&describe=1`, undefined],
    ] as const) {
      const theirs = await api(app.url, method, path, { token: stranger.token, form });
      const none = await api(app.url, method, path.replace(steady, missing), {
        token: stranger.token,
        form: form && { ...form, tree_id: missing },
      });
      expect(theirs.status).toBe(404);
      expect(theirs.text).toBe(none.text);
    }
    const malformed = await api(app.url, 'GET', '/api/tree_views?tree_id=not-a-tree', { token: stranger.token });
    const absent = await api(app.url, 'GET', `/api/tree_views?tree_id=${missing}`, { token: stranger.token });
    expect(malformed.status).toBe(404);
    expect(malformed.text).toBe(absent.text);
    const list = await api(app.url, 'GET', '/api/trees', { token: stranger.token });
    expect(list.json.trees.map((t: any) => t.tree_id)).not.toContain(steady);
  });
});
