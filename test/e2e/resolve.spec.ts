import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';

/** Enrol one tree through the real route and return its id and traceability code. */
async function enrollTree(app: TestApp, user: { token: string; id: string }, seed: number) {
  const photos = await Promise.all([0, 1].map((i) => textureImage(seed * 10 + i, 320)));
  const form = photoForm(photos, { species: 'durian', farm_id: 'farm-r', name: `tree ${seed}`, lat: '10.7769', lon: '106.7009' });
  const r = await fetch(`${app.url}/api/enroll`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
  const json = (await r.json()) as any;
  expect(r.status, JSON.stringify(json)).toBe(200);
  // The code comes from the real enrolment: the answer names it, and it is the stored one.
  const row = (await app.container.db.query<{ code: string }>('select code from tree_records where individual_id = $1', [json.tree_id]))
    .rows[0]!;
  expect(json.code).toBe(row.code);
  return { id: json.tree_id as string, code: row.code };
}

/** A code of the right shape that no tree has: same prefix and geohash, another suffix. */
const wrongCodeLike = (code: string) => code.replace(/-[^-]{8}$/, code.endsWith('ZZZZZZZZ') ? '-YYYYYYYY' : '-ZZZZZZZZ');

describe('public traceability lookup: one decision, three states', () => {
  let app: TestApp;
  let owner: { token: string; id: string };
  let tree: { id: string; code: string };
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    owner = await signup(app.url, 'res');
    tree = await enrollTree(app, owner, 41);
  });
  afterAll(async () => app?.stop());

  it('answers a private code exactly like a wrong code, in the API and on the page', async () => {
    const wrong = wrongCodeLike(tree.code);
    for (const base of ['/api/resolve/', '/t/']) {
      const priv = await api(app.url, 'GET', base + tree.code);
      const miss = await api(app.url, 'GET', base + wrong);
      const junk = await api(app.url, 'GET', `${base}not-a-code`);
      expect(priv.status).toBe(404);
      expect(miss.status).toBe(404);
      expect(priv.text).toBe(miss.text);
      expect(junk.text).toBe(miss.text);
      expect(priv.headers.get('content-type')).toBe(miss.headers.get('content-type'));
      expect(priv.text).not.toContain(tree.code);
    }
    const body = (await api(app.url, 'GET', `/api/resolve/${tree.code}`)).json;
    expect(body).toEqual({
      ok: false,
      error: expect.any(String),
      detail: expect.any(String),
      code: 'code_unknown',
      request_id: expect.any(String),
    });
  });

  it('takes similar time for a private and a wrong code', async () => {
    const wrong = wrongCodeLike(tree.code);
    const time = async (code: string) => {
      const t = performance.now();
      await api(app.url, 'GET', `/api/resolve/${code}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 5; i++) await time(i % 2 ? wrong : tree.code); // warm up
    const priv: number[] = [];
    const miss: number[] = [];
    for (let i = 0; i < 30; i++) {
      priv.push(await time(tree.code));
      miss.push(await time(wrong));
    }
    // Load on the machine only ever adds time, and in bursts: the lower quartile of each series is
    // what the code itself costs, where a median can land in a burst that hit one series more.
    const quartile = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 4)]!;
    const ratio = quartile(priv) / quartile(miss);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('shows a summary card with no images and no coordinates when restricted', async () => {
    const pub = await api(app.url, 'POST', `/api/tree/${tree.id}/publish`, { token: owner.token, form: { level: 'restricted' } });
    expect(pub.json).toMatchObject({ ok: true, visibility: 'restricted', code: tree.code, link: `/t/${tree.code}` });
    const r = await api(app.url, 'GET', `/api/resolve/${tree.code}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, state: 'restricted', code: tree.code, summary: { species: 'durian', anchored: false } });
    expect(r.text).not.toMatch(/bafy|images|"lat"|"lon"|geohash|106\.7/);
    const page = await api(app.url, 'GET', `/t/${tree.code}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain(tree.code);
    expect(page.text).not.toMatch(/bafy|106\.7/);
  });

  it('shows the provenance record and its link when public, and hides it again on unpublish', async () => {
    await api(app.url, 'POST', `/api/tree/${tree.id}/publish`, { token: owner.token });
    const r = await api(app.url, 'GET', `/api/resolve/${tree.code}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, state: 'public', code: tree.code, link: `/t/${tree.code}`, image_count: 2, name: 'tree 41' });
    expect(r.json.record).toMatchObject({ code: tree.code, species: 'durian', geohash: tree.code.split('-')[1] });
    expect(r.json.record.images).toHaveLength(2);
    const stored = (
      await app.container.db.query<{ record_hash: string }>('select record_hash from tree_records where individual_id = $1', [tree.id])
    ).rows[0]!;
    expect(r.json.record_hash).toBe(stored.record_hash);
    const page = await api(app.url, 'GET', `/t/${tree.code}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(r.json.record.images[0]);
    expect(page.text).toContain(stored.record_hash);

    await api(app.url, 'POST', `/api/tree/${tree.id}/unpublish`, { token: owner.token });
    const hidden = await api(app.url, 'GET', `/api/resolve/${tree.code}`);
    const wrong = await api(app.url, 'GET', `/api/resolve/${wrongCodeLike(tree.code)}`);
    expect(hidden.status).toBe(404);
    expect(hidden.text).toBe(wrong.text);
  });

  it('puts the same resolution into the page as one inert data block, never stored by caches', async () => {
    await api(app.url, 'POST', `/api/tree/${tree.id}/publish`, { token: owner.token });
    const page = await api(app.url, 'GET', `/t/${tree.code}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const blocks = [...page.text.matchAll(/<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/g)];
    expect(blocks).toHaveLength(1);
    const data = JSON.parse(blocks[0]![1]!);
    const json = (await api(app.url, 'GET', `/api/resolve/${tree.code}`)).json;
    expect(data).toEqual(json);
    expect(data).toMatchObject({ ok: true, state: 'public', code: tree.code, tree_id: tree.id });
    // The only scripts are the page's own module and the data block.
    expect([...page.text.matchAll(/<script/g)]).toHaveLength(2);
    await api(app.url, 'POST', `/api/tree/${tree.id}/unpublish`, { token: owner.token });
  });

  it('lets only the owner publish: 401 anonymous, 404 for a stranger as for a missing tree', async () => {
    const stranger = await signup(app.url, 'res');
    expect((await api(app.url, 'POST', `/api/tree/${tree.id}/publish`)).status).toBe(401);
    const theirs = await api(app.url, 'POST', `/api/tree/${tree.id}/publish`, { token: stranger.token });
    const missing = await api(app.url, 'POST', '/api/tree/00000000-0000-4000-8000-000000000000/publish', { token: stranger.token });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(missing.text);
    expect((await api(app.url, 'GET', `/api/resolve/${tree.code}`)).status).toBe(404);
  });
});
