/**
 * Issue 24: a tree's printed code works wherever a tree id is asked for (fruit enrol, identify,
 * batch, the tree's views, rename, provenance, publishing), and another account's code answers
 * like a code no tree has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';

describe('tree codes in place of tree ids (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  let tree: { tree_id: string; code: string };

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    owner = await signup(app.url, 'coder');
    const r = await api(app.url, 'POST', '/api/enroll', {
      token: owner.token,
      body: photoForm([await textureImage(3101, 320)], { species: 'durian' }),
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    tree = { tree_id: r.json.tree_id, code: r.json.code };
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('enrols and identifies fruit on a tree named by its printed code (any case), and a code no tree has is 404', async () => {
    expect(tree.code).toBeTruthy();
    const peel = await textureImage(3102, 320);
    const e = await api(app.url, 'POST', '/api/fruit/enroll', {
      token: owner.token,
      body: photoForm([peel], { tree_id: tree.code.toLowerCase() }),
    });
    expect(e.status, JSON.stringify(e.json)).toBe(200);
    const row = await app.container.db.query<{ tree_id: string }>('select tree_id from individuals where id = $1', [e.json.fruit_id]);
    expect(row.rows[0]!.tree_id).toBe(tree.tree_id);
    const id = await api(app.url, 'POST', '/api/fruit/identify', { token: owner.token, body: photoForm([peel], { tree_id: tree.code }) });
    expect(id.status).toBe(200);
    const none = await api(app.url, 'POST', '/api/fruit/identify', {
      token: owner.token,
      body: photoForm([peel], { tree_id: 'NO-SUCH-CODE' }),
    });
    expect(none.status).toBe(404);
    // Another account's tree by its code: the same 404 as a missing tree.
    const stranger = await signup(app.url, 'stranger');
    const theirs = await api(app.url, 'POST', '/api/fruit/enroll', {
      token: stranger.token,
      body: photoForm([await textureImage(3103, 320)], { tree_id: tree.code }),
    });
    const missing = await api(app.url, 'POST', '/api/fruit/enroll', {
      token: stranger.token,
      body: photoForm([await textureImage(3103, 320)], { tree_id: 'NO-SUCH-CODE' }),
    });
    expect(theirs.status).toBe(404);
    expect({ ...theirs.json, request_id: 0 }).toEqual({ ...missing.json, request_id: 0 });
  }, 120_000);

  it('names the tree by its code for its views, rename, provenance and publishing; a stranger gets the same 404 as for no tree', async () => {
    const views = await api(app.url, 'GET', `/api/tree_views?tree_id=${tree.code.toLowerCase()}`, { token: owner.token });
    expect(views.status, views.text).toBe(200);
    expect(views.json.tree_id).toBe(tree.tree_id);
    const renamed = await api(app.url, 'POST', '/api/rename', {
      token: owner.token,
      form: { tree_id: tree.code, name: 'Sầu riêng góc ao' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toMatchObject({ ok: true, tree_id: tree.tree_id, name: 'Sầu riêng góc ao' });
    const prov = await api(app.url, 'GET', `/api/provenance/${tree.code}`, { token: owner.token });
    expect(prov.status, prov.text).toBe(200);
    expect(prov.json.tree_id).toBe(tree.tree_id);
    const pub = await api(app.url, 'POST', `/api/tree/${tree.code}/publish`, { token: owner.token, form: { level: 'restricted' } });
    expect(pub.status, pub.text).toBe(200);
    const vis = await app.container.db.query<{ visibility: string }>('select visibility from individuals where id = $1', [tree.tree_id]);
    expect(vis.rows[0]!.visibility).toBe('restricted');
    const stranger = await signup(app.url, 'peeker');
    for (const [method, path, form] of [
      ['GET', `/api/tree_views?tree_id=${tree.code}`, undefined],
      ['POST', '/api/rename', { tree_id: tree.code, name: 'x' }],
      ['GET', `/api/provenance/${tree.code}`, undefined],
      ['POST', `/api/tree/${tree.code}/unpublish`, undefined],
    ] as const) {
      const theirs = await api(app.url, method, path, { token: stranger.token, ...(form ? { form } : {}) });
      const none = await api(app.url, method, path.replace(tree.code, 'NO-SUCH-CODE'), {
        token: stranger.token,
        ...(form ? { form: { ...form, tree_id: 'NO-SUCH-CODE' } } : {}),
      });
      expect(theirs.status, `${path}: ${theirs.text}`).toBe(404);
      expect({ ...theirs.json, request_id: 0 }).toEqual({ ...none.json, request_id: 0 });
    }
  }, 120_000);
});
