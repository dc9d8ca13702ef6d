/**
 * Issue 39: a packing house or grower renames a fruit (POST /api/rename with `fruit_id`), as a
 * tree is renamed. The new name is what the fruit list, the batch rows and their CSV, and a
 * shopper's lookup show; another account's fruit is the same 404 as a fruit that does not exist;
 * bad input is a 422 whose `error` is a whole sentence naming the field (the contract's status
 * for a missing field or a wrong type). The deterministic engine: nothing here is about recognition; a batch row is
 * decided by the owner as the fruit, so its decided columns name it whatever the engine answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { batchForm, untilDone } from '../support/fruit-batch.js';
import { photoForm, textureImage } from '../support/images.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('renaming a fruit (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  let tree: { id: string; code: string };
  let fruitId: string;
  let peel: Buffer;

  const listed = async (token = owner.token) =>
    (await api(app.url, 'GET', `/api/fruit?fruit_id=${fruitId}`, { token })).json.fruit[0] as { name: string | null } | undefined;

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    owner = await signup(app.url, 'packhouse');
    const t = await api(app.url, 'POST', '/api/enroll', {
      token: owner.token,
      body: photoForm([await textureImage(6201, 320)], { species: 'apple', name: 'Cây táo hàng 3' }),
    });
    expect(t.status, t.text).toBe(200);
    tree = { id: t.json.tree_id, code: t.json.code };
    peel = await textureImage(6211, 320);
    const f = await api(app.url, 'POST', '/api/fruit/enroll', {
      token: owner.token,
      body: photoForm([peel], { species: 'apple', tree_id: tree.code, name: 'Táo số 1' }),
    });
    expect(f.status, f.text).toBe(200);
    fruitId = f.json.fruit_id;
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('the owner renames a fruit; the name is cleaned as a tree name is, and the list shows it', async () => {
    const r = await api(app.url, 'POST', '/api/rename', {
      token: owner.token,
      form: { fruit_id: fruitId, name: '  <b>Táo Fuji\u200b  lô\t7</b>\u0007 ' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ok: true, fruit_id: fruitId, name: 'Táo Fuji lô 7' });
    expect((await listed())?.name).toBe('Táo Fuji lô 7');
    // JSON works as the form does.
    const j = await api(app.url, 'POST', '/api/rename', { token: owner.token, json: { fruit_id: fruitId, name: 'Táo Fuji lô 8' } });
    expect(j.json).toEqual({ ok: true, fruit_id: fruitId, name: 'Táo Fuji lô 8' });
    expect((await listed())?.name).toBe('Táo Fuji lô 8');
    // Nothing left after cleaning: 200 with ok:false and the sentence; the name stays.
    const empty = await api(app.url, 'POST', '/api/rename', { token: owner.token, form: { fruit_id: fruitId, name: ' <br>\u200b\t ' } });
    expect(empty.status).toBe(200);
    expect(empty.json).toMatchObject({ ok: false, code: 'rename_empty', detail: 'name' });
    expect(String(empty.json.error)).toMatch(/[.!]$/);
    expect((await listed())?.name).toBe('Táo Fuji lô 8');
    // The tree's own rename is unchanged by the fruit case.
    const tr = await api(app.url, 'POST', '/api/rename', { token: owner.token, form: { tree_id: tree.code, name: 'Cây táo hàng 4' } });
    expect(tr.json).toEqual({ ok: true, tree_id: tree.id, name: 'Cây táo hàng 4' });
    expect((await listed())?.name).toBe('Táo Fuji lô 8');
  });

  it('a batch row and its CSV name the fruit by its new name, and follow a later rename', async () => {
    const b = await api(app.url, 'POST', '/api/fruit/batch', {
      token: owner.token,
      body: batchForm([{ name: 'crate-1.jpg', bytes: peel }]),
    });
    expect(b.status, b.text).toBe(202);
    const done = await untilDone(app, owner.token, b.json.batch_id);
    const row = done.rows[0];
    expect(row.status, JSON.stringify(row)).toBe('done');
    // The deterministic engine has no local evidence to vouch for a fruit (its rows are not matches):
    // the owner decides the row is this fruit, and the row and the CSV's decided columns name it.
    const v = await api(app.url, 'POST', '/api/fruit/identify_verdict', {
      token: owner.token,
      form: { query_id: row.query_id, verdict: row.verdict === 'match' ? 'correct' : 'other', correct_id: fruitId },
    });
    expect(v.status, v.text).toBe(200);
    const decided = await api(app.url, 'GET', `/api/fruit/batch/${b.json.batch_id}`, { token: owner.token });
    expect(decided.json.rows[0]).toMatchObject({ decided_fruit_id: fruitId, decided_fruit_name: 'Táo Fuji lô 8' });
    const csv = async () => (await api(app.url, 'GET', `/api/fruit/batch/${b.json.batch_id}/results.csv`, { token: owner.token })).text;
    expect(await csv()).toContain('Táo Fuji lô 8');
    await api(app.url, 'POST', '/api/rename', { token: owner.token, form: { fruit_id: fruitId, name: 'Táo xuất khẩu 12' } });
    const after = await csv();
    expect(after).toContain('Táo xuất khẩu 12');
    expect(after).not.toContain('Táo Fuji lô 8');
    const again = await api(app.url, 'GET', `/api/fruit/batch/${b.json.batch_id}`, { token: owner.token });
    expect(again.json.rows[0]).toMatchObject({ decided_fruit_name: 'Táo xuất khẩu 12' });
  });

  it("another account's fruit is the same 404 as a fruit that does not exist, and keeps its name", async () => {
    const before = (await listed())?.name;
    const stranger = await signup(app.url, 'grabber');
    for (const lang of ['vi', 'en']) {
      const headers = { 'accept-language': lang };
      const theirs = await api(app.url, 'POST', '/api/rename', {
        token: stranger.token,
        headers,
        form: { fruit_id: fruitId, name: 'của tôi' },
      });
      const none = await api(app.url, 'POST', '/api/rename', {
        token: stranger.token,
        headers,
        form: { fruit_id: MISSING, name: 'của tôi' },
      });
      expect(theirs.status).toBe(404);
      expect(theirs.text).toBe(none.text);
      expect(theirs.json).toMatchObject({ ok: false, code: 'not_found' });
      expect(String(theirs.json.error)).toMatch(/[.!]$/);
    }
    // The owner's tree id given as a fruit is not a fruit either.
    const treeAsFruit = await api(app.url, 'POST', '/api/rename', { token: owner.token, form: { fruit_id: tree.id, name: 'x' } });
    expect(treeAsFruit.status).toBe(404);
    expect((await api(app.url, 'POST', '/api/rename', { form: { fruit_id: fruitId, name: 'x' } })).status).toBe(401);
    expect((await listed())?.name).toBe(before);
  });

  it("a shopper's lookup of the published fruit names it by its new name", async () => {
    const pub = await api(app.url, 'POST', `/api/fruit/${fruitId}/publish`, { token: owner.token });
    expect(pub.status, pub.text).toBe(200);
    await api(app.url, 'POST', '/api/rename', { token: owner.token, form: { fruit_id: fruitId, name: 'Táo xuất khẩu 12' } });
    // No account: the public lookup among published fruit.
    const r = await api(app.url, 'POST', '/api/fruit/lookup', { body: photoForm([peel]) });
    expect(r.status, r.text).toBe(200);
    const shown = (r.json.candidates as { fruit_id: string; name: string | null }[]).find((c) => c.fruit_id === fruitId);
    expect(shown, JSON.stringify(r.json.candidates)).toMatchObject({ name: 'Táo xuất khẩu 12' });
  });

  it('bad input is a 422 whose error is a whole sentence naming the field, in Vietnamese by default and in English', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ fruit_id: fruitId }, 'name'],
      [{ fruit_id: 'not-a-fruit', name: 'x' }, 'fruit_id'],
      [{ name: 'x' }, 'fruit_id'],
      [{ fruit_id: fruitId, tree_id: tree.code, name: 'x' }, 'fruit_id'],
    ];
    for (const [form, field] of cases) {
      const vi = await api(app.url, 'POST', '/api/rename', { token: owner.token, form });
      expect(vi.status, `${JSON.stringify(form)} ${vi.text}`).toBe(422);
      expect(vi.json).toMatchObject({ ok: false, code: 'validation_failed' });
      expect(vi.json.error).toMatch(new RegExp(`"${field}".*\\.$`));
      const en = await api(app.url, 'POST', '/api/rename', { token: owner.token, form, headers: { 'accept-language': 'en' } });
      expect(en.json.error).toMatch(new RegExp(`"${field}".*\\.$`));
      expect(en.json.error).not.toBe(vi.json.error);
    }
    const long = await api(app.url, 'POST', '/api/rename', { token: owner.token, json: { fruit_id: fruitId, name: 'ă'.repeat(1001) } });
    expect(long.status).toBe(422);
    expect((await listed())?.name).toBe('Táo xuất khẩu 12');
  });

  it("through a fruit grant: a read-write grantee may rename the owner's fruit, a read-only one gets 403 with the sentence", async () => {
    const reader = await signup(app.url, 'fruitreader');
    const writer = await signup(app.url, 'fruitwriter');
    for (const [who, access] of [
      [reader, 'read'],
      [writer, 'write'],
    ] as const) {
      const g = await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: who.username, access, kind: 'fruit' } });
      expect(g.status, g.text).toBe(200);
    }
    const ro = await api(app.url, 'POST', '/api/rename', { token: reader.token, form: { fruit_id: fruitId, name: 'của người đọc' } });
    expect(ro.status, ro.text).toBe(403);
    expect(ro.json).toMatchObject({ ok: false, code: 'forbidden' });
    expect(String(ro.json.error)).toMatch(/[.!]$/);
    const rw = await api(app.url, 'POST', '/api/rename', { token: writer.token, form: { fruit_id: fruitId, name: 'Táo lô 9' } });
    expect(rw.json).toEqual({ ok: true, fruit_id: fruitId, name: 'Táo lô 9' });
    expect((await listed())?.name).toBe('Táo lô 9');
  });

  it('the OpenAPI document describes the fruit case', async () => {
    const doc = (await api(app.url, 'GET', '/openapi.json')).json;
    const op = doc.paths['/api/rename'].post;
    const schema = JSON.stringify(op.requestBody);
    expect(schema).toContain('fruit_id');
    expect(op.description).toMatch(/fruit_id/);
  });
});
