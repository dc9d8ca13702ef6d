import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeOfJob } from '../../shared/src/access/owner-scope.js';
import { poolOwners } from '../../api/src/services/grants.service.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';

type User = { token: string; id: string; username: string };

describe("grants: sharing one owner's trees, read-only or read-write, and revoking", () => {
  let app: TestApp;
  let owner: User;
  let grantee: User;
  let outsider: User;
  let tree: string;
  const pool = (u: User, kind: 'tree' | 'fruit' = 'tree') => poolOwners(app.container.db, scopeOfJob({ owner_id: u.id }), kind);
  const rename = (u: User, name: string) => api(app.url, 'POST', '/api/rename', { token: u.token, form: { tree_id: tree, name } });
  const views = (u: User) => api(app.url, 'GET', `/api/tree_views?tree_id=${tree}`, { token: u.token });

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    [owner, grantee, outsider] = await Promise.all([signup(app.url, 'own'), signup(app.url, 'gra'), signup(app.url, 'out')]);
    const r = await fetch(`${app.url}/api/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: photoForm([await textureImage(2100, 320)], { farm_id: 'shared-farm', species: 'durian', name: 'shared' }),
    });
    tree = ((await r.json()) as any).tree_id;
  });
  afterAll(async () => app?.stop());

  it('keeps every account to itself before any grant', async () => {
    expect(await pool(grantee)).toEqual([grantee.id]);
    expect((await views(grantee)).status).toBe(404);
    const list = await api(app.url, 'GET', '/api/trees?include_shared=1', { token: grantee.token });
    expect(list.json.trees).toEqual([]);
  });

  it('a read-only grant opens reading and matching, not writing', async () => {
    const g = await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: grantee.username, access: 'read-only' } });
    expect(g.status).toBe(200);
    expect(g.json.grant).toMatchObject({
      owner: { id: owner.id },
      grantee: { id: grantee.id, username: grantee.username },
      kind: 'tree',
      access: 'read',
    });
    expect(await pool(grantee)).toEqual([grantee.id, owner.id]);
    // A tree grant says nothing about fruit, and never widens the owner's or anyone else's pool.
    expect(await pool(grantee, 'fruit')).toEqual([grantee.id]);
    expect(await pool(owner)).toEqual([owner.id]);
    expect(await pool(outsider)).toEqual([outsider.id]);

    expect((await views(grantee)).status).toBe(200);
    const shared = await api(app.url, 'GET', '/api/trees?include_shared=1', { token: grantee.token });
    expect(shared.json.trees).toMatchObject([{ tree_id: tree, owner_id: owner.id, access: 'read' }]);
    expect((await api(app.url, 'GET', '/api/trees', { token: grantee.token })).json.trees).toEqual([]);

    const denied = await rename(grantee, 'not allowed');
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ ok: false, code: 'forbidden' });
    expect((await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: grantee.token })).status).toBe(403);
    // Someone without a grant still sees nothing: 404, like a tree that does not exist.
    expect((await rename(outsider, 'nope')).status).toBe(404);
  });

  it('a read-write grant lets the grantee rename; publishing stays with the owner', async () => {
    const g = await api(app.url, 'POST', '/api/grant', { token: owner.token, json: { grantee: grantee.id, access: 'write' } });
    expect(g.json.grant.access).toBe('write');
    const r = await rename(grantee, 'renamed by grantee');
    expect(r.json).toEqual({ ok: true, tree_id: tree, name: 'renamed by grantee' });
    expect((await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: grantee.token })).status).toBe(403);
    const mine = await api(app.url, 'GET', '/api/grants', { token: owner.token });
    const theirs = await api(app.url, 'GET', '/api/grants', { token: grantee.token });
    expect(mine.json.given).toHaveLength(1);
    expect(mine.json.received).toEqual([]);
    expect(theirs.json.received).toMatchObject([{ owner: { username: owner.username }, access: 'write' }]);
  });

  it('revocation closes everything again at once', async () => {
    const r = await api(app.url, 'POST', '/api/grant/revoke', { token: owner.token, form: { grantee: grantee.username } });
    expect(r.json).toEqual({ ok: true, revoked: true });
    expect(await pool(grantee)).toEqual([grantee.id]);
    expect((await views(grantee)).status).toBe(404);
    expect((await rename(grantee, 'too late')).status).toBe(404);
    expect((await api(app.url, 'GET', '/api/trees?include_shared=1', { token: grantee.token })).json.trees).toEqual([]);
    expect((await api(app.url, 'POST', '/api/grant/revoke', { token: owner.token, form: { grantee: grantee.username } })).status).toBe(404);
  });

  it('refuses self-grants, unknown accounts and anonymous callers', async () => {
    expect((await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: owner.username } })).json.code).toBe(
      'grant_self',
    );
    expect((await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: 'no_such_user_xyz' } })).status).toBe(404);
    expect(
      (await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: grantee.username, access: 'admin' } })).status,
    ).toBe(422);
    expect((await api(app.url, 'POST', '/api/grant', { form: { grantee: grantee.username } })).status).toBe(401);
  });
});
