/**
 * Care log against the real service: logging with a packaging photo stored by CID, withdrawal
 * status with product, interval and source, ownership and grants (404 for everything not yours),
 * the care events on the individual's timeline as inherited events, and deletion.
 */
import { detectableShots } from '../support/animal-shots.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { labelImage, labelSpec } from '../support/labels.js';
import { enrollTree } from './timeline.helpers.js';

type Account = { token: string; id: string; username: string };
const DAY = 86_400_000;

describe.each<Mode>(['embedded', 'distributed'])('care log (%s)', (mode) => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let grantee: Account;
  let tree: string;
  let animalDid: string;

  const log = (token: string, fields: Record<string, string>, photo?: Buffer) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    if (photo) form.append('photo', new Blob([photo], { type: 'image/jpeg' }), 'pack.jpg');
    return api(app.url, 'POST', '/api/care/log', { token, body: form });
  };
  const get = (path: string, token?: string) => api(app.url, 'GET', path, token ? { token } : {});
  const count = async () => (await app.container.db.query<{ n: number }>('select count(*)::int as n from care_entries')).rows[0]!.n;
  const blobs = async () => (await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs')).rows[0]!.n;

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode });
    [owner, stranger, grantee] = await Promise.all([signup(app.url, 'owner'), signup(app.url, 'stranger'), signup(app.url, 'grantee')]);
    // A durian tree: no interval of the product names it, so the longest one (tomato, 5 days) applies.
    tree = (await enrollTree(app.url, owner.token, 71, { species: 'durian', farm_id: 'care-farm' })).tree_id;
    // Animal enrolment needs an animal the detector can see in every photo.
    const shots = await detectableShots(72, 3);
    const form = new FormData();
    for (const [k, s] of shots.entries()) form.append('files', new Blob([new Uint8Array(s.photo)], { type: 'image/jpeg' }), `a${k}.jpg`);
    form.append('species', 'cattle');
    form.append('farm_id', 'care-farm');
    const a = await api(app.url, 'POST', '/api/animal/enroll', { token: owner.token, body: form });
    expect(a.status, a.text).toBe(200);
    animalDid = a.json.animal_did;
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('logs a spray on a tree with its packaging photo stored by CID; the pre-harvest interval comes from the product store with its source', async () => {
    const photo = await labelImage(labelSpec(5));
    const applied = new Date(Date.now() - DAY).toISOString();
    const r = await log(
      owner.token,
      { target_type: 'tree', target_id: tree, action: 'spray', product_id: 'dithane_m45', dose: '2 g/L', applied_at: applied },
      photo,
    );
    expect(r.status, r.text).toBe(200);
    const e = r.json.entry;
    expect(e).toMatchObject({ target_type: 'tree', target_id: tree, author_role: 'owner', product_id: 'dithane_m45', banned: [] });
    expect(e.withdrawal).toMatchObject({
      kind: 'pre_harvest',
      target: 'tomato',
      interval_days: 5,
      source: { title: expect.stringMatching(/EPA Reg\. No\. 62719-387/) },
    });
    expect(e.withdrawal_until).toBe(new Date(Date.parse(applied) + 5 * DAY).toISOString());
    expect(r.json.banned_check).toBe('ok');
    expect(e.photo_cid).toMatch(/^b[a-z2-7]+$/);
    expect(Buffer.compare((await app.container.blobs.get(e.photo_cid))!, photo)).toBe(0);
    const row = await app.container.db.query('select author_id, photo_cid from care_entries where id = $1', [e.id]);
    expect(row.rows[0]).toMatchObject({ author_id: owner.id, photo_cid: e.photo_cid });
  });

  it('GET /api/care/withdrawal: blocked, until when, and why (product, interval, source); an expired one does not block', async () => {
    const w = await get(`/api/care/withdrawal?target_type=tree&target_id=${tree}`, owner.token);
    expect(w.status).toBe(200);
    expect(w.json.blocked).toBe(true);
    expect(w.json.blocking).toHaveLength(1);
    expect(w.json.blocking[0]).toMatchObject({
      product_id: 'dithane_m45',
      product_name: 'Dithane M-45 (mancozeb)',
      interval_days: 5,
      source: { url: expect.stringMatching(/^https:/) },
    });
    expect(w.json.until).toBe(w.json.blocking[0].until);
    const old = await log(owner.token, {
      target_type: 'tree',
      target_id: tree,
      product_name: 'Sevin XLR Plus',
      applied_at: new Date(Date.now() - 30 * DAY).toISOString(),
    });
    // No interval names durian, so the longest applies (citrus, 5 days): when unsure, block longer.
    expect(old.json.entry.withdrawal).toMatchObject({ product_id: 'sevin_xlr', target: 'citrus', interval_days: 5 });
    const again = await get(`/api/care/withdrawal?target_type=tree&target_id=${tree}`, owner.token);
    expect(again.json.blocking.map((b: any) => b.product_id)).toEqual(['dithane_m45']);
  });

  it('an animal (by animal_did): withdrawal from the label for its species; a banned product named on the log is flagged', async () => {
    const r = await log(owner.token, { target_type: 'animal', target_id: animalDid, action: 'treat', product_id: 'draxxin' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.entry.withdrawal).toMatchObject({ kind: 'withdrawal', target: 'cattle', use: 'meat', interval_days: 18 });
    const bad = await log(owner.token, {
      target_type: 'animal',
      target_id: animalDid,
      product_name: 'thuốc Cloramphenicol',
      interval_days: '30',
    });
    expect(bad.json.entry.banned.map((b: any) => b.id)).toEqual(['chloramphenicol']);
    expect(bad.json.entry.withdrawal).toMatchObject({ interval_days: 30, source: { url: null } });
    const w = await get(`/api/care/withdrawal?target_type=animal&target_id=${encodeURIComponent(animalDid)}`, owner.token);
    expect(w.json.blocked).toBe(true);
    expect(w.json.blocking.map((b: any) => b.interval_days)).toEqual([30, 18]);
  });

  it('refuses bad input with 422 and leaves no row and no orphaned blob', async () => {
    const [rows, nBlobs] = [await count(), await blobs()];
    const cases: [Record<string, string>, Buffer | undefined][] = [
      [{ target_id: tree, product_name: 'x' }, undefined],
      [{ target_type: 'tree', target_id: tree }, undefined],
      [{ target_type: 'tree', target_id: tree, product_id: 'no-such-product' }, await labelImage(labelSpec(6))],
      [{ target_type: 'tree', target_id: tree, product_name: 'x', applied_at: new Date(Date.now() + DAY).toISOString() }, undefined],
      [{ target_type: 'tree', target_id: tree, product_name: 'x' }, Buffer.from('this is not an image, only some text')],
    ];
    for (const [fields, photo] of cases) {
      const r = await log(owner.token, fields, photo);
      expect(r.status, JSON.stringify(fields)).toBe(422);
      expect(r.json.ok).toBe(false);
    }
    // A JSON body where multipart is expected is the client's mistake too (415 naming the type), not a server error.
    const json = await api(app.url, 'POST', '/api/care/log', {
      token: owner.token,
      json: { target_type: 'tree', target_id: tree, product_name: 'x' },
    });
    expect(json.status).toBe(415);
    expect(await count()).toBe(rows);
    expect(await blobs()).toBe(nBlobs);
  });

  it('not yours: 404 for log, events and withdrawal, identical to an id that does not exist; 401 without a token', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const a = await log(stranger.token, { target_type: 'tree', target_id: tree, product_name: 'x' });
    const b = await log(stranger.token, { target_type: 'tree', target_id: missing, product_name: 'x' });
    expect([a.status, b.status]).toEqual([404, 404]);
    expect(a.json).toEqual(b.json);
    const e1 = await get(`/api/care/events?target_type=tree&target_id=${tree}`, stranger.token);
    const e2 = await get(`/api/care/events?target_type=tree&target_id=${missing}`, stranger.token);
    expect([e1.status, e2.status]).toEqual([404, 404]);
    expect(e1.json).toEqual(e2.json);
    expect((await get(`/api/care/withdrawal?target_type=tree&target_id=${tree}`, stranger.token)).status).toBe(404);
    expect((await get(`/api/care/events?target_type=tree&target_id=${tree}`)).status).toBe(401);
    // The right id under the wrong type is not the tree either.
    expect((await get(`/api/care/events?target_type=fruit&target_id=${tree}`, owner.token)).status).toBe(404);
  });

  it('grants: read access reads the log but cannot write; write access logs as a contributor', async () => {
    await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: grantee.username, access: 'read-only' } });
    expect((await get(`/api/care/events?target_type=tree&target_id=${tree}`, grantee.token)).status).toBe(200);
    expect((await log(grantee.token, { target_type: 'tree', target_id: tree, product_name: 'x' })).status).toBe(404);
    await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: grantee.username, access: 'write' } });
    const r = await log(grantee.token, { target_type: 'tree', target_id: tree, action: 'water', note: 'tưới nước' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.entry.author_role).toBe('contributor');
    // Only the author may delete: the owner gets the same 404 as for an entry that does not exist.
    const d = await api(app.url, 'POST', '/api/care/delete', { token: owner.token, form: { id: r.json.entry.id } });
    expect(d.status).toBe(404);
  });

  it('GET /api/care/events lists the log oldest first', async () => {
    const r = await get(`/api/care/events?target_type=tree&target_id=${tree}`, owner.token);
    expect(r.json.count).toBe(3);
    expect(r.json.events.map((e: any) => e.product_id ?? e.action)).toEqual(['sevin_xlr', 'dithane_m45', 'water']);
    expect((await get(`/api/care/events?target_type=tree`, owner.token)).status).toBe(422);
  });

  it("care entries are inherited events of the tree's timeline: inherited_from, no hashes; guests do not see them", async () => {
    const t = await get(`/api/tree/${tree}/timeline`, owner.token);
    expect(t.status).toBe(200);
    expect(t.json.chain_ok).toBe(true);
    const care = t.json.events.filter((e: any) => e.inherited_from?.entity_type === 'care');
    expect(care).toHaveLength(3);
    for (const e of care) {
      expect(e).not.toHaveProperty('prev_hash');
      expect(e).not.toHaveProperty('leaf_hash');
      expect(e).toMatchObject({ visibility: 'private', approval: 'approved', body: { type: 'care' } });
    }
    expect(care.find((e: any) => e.body.product_id === 'dithane_m45').body.photo_cid).toMatch(/^b/);
    expect(t.json.events.some((e: any) => e.body.type === 'enroll' && e.leaf_hash)).toBe(true);
    // A guest gets a private tree's timeline exactly like a missing one; once published, still no care entries.
    expect((await get(`/api/tree/${tree}/timeline`)).status).toBe(404);
    expect((await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: owner.token })).status).toBe(200);
    const guest = await get(`/api/tree/${tree}/timeline`);
    expect(guest.status).toBe(200);
    expect(guest.json.events.some((e: any) => e.inherited_from)).toBe(false);
    expect((await api(app.url, 'POST', `/api/tree/${tree}/unpublish`, { token: owner.token })).status).toBe(200);
  });

  it("POST /api/care/delete removes the caller's own entry; the timeline keeps a deletion event", async () => {
    const events = (await get(`/api/care/events?target_type=tree&target_id=${tree}`, owner.token)).json.events;
    const target = events.find((e: any) => e.product_id === 'dithane_m45');
    expect((await api(app.url, 'POST', '/api/care/delete', { token: stranger.token, form: { id: target.id } })).status).toBe(404);
    expect((await api(app.url, 'POST', '/api/care/delete', { token: owner.token, form: { id: 'nope' } })).status).toBe(404);
    const d = await api(app.url, 'POST', '/api/care/delete', { token: owner.token, form: { id: target.id } });
    expect(d.status, d.text).toBe(200);
    expect(d.json).toMatchObject({ ok: true, deleted: target.id });
    expect((await api(app.url, 'POST', '/api/care/delete', { token: owner.token, form: { id: target.id } })).status).toBe(404);
    const after = await get(`/api/care/events?target_type=tree&target_id=${tree}`, owner.token);
    expect(after.json.events.map((e: any) => e.id)).not.toContain(target.id);
    expect((await get(`/api/care/withdrawal?target_type=tree&target_id=${tree}`, owner.token)).json).toMatchObject({
      blocked: false,
      until: null,
      blocking: [],
    });
    const t = await get(`/api/tree/${tree}/timeline`, owner.token);
    const mine = t.json.events.filter((e: any) => e.inherited_from?.entity_id === target.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].body).toEqual({ type: 'care_deleted', care_id: target.id });
    expect(mine[0].event_id).not.toBe(target.id);
    const row = await app.container.db.query('select deleted_at, product_id, photo_cid from care_entries where id = $1', [target.id]);
    expect(row.rows[0]).toMatchObject({ product_id: null, photo_cid: null });
    expect(row.rows[0]!.deleted_at).not.toBeNull();
  });
});
