/**
 * Issue 21, finding 2: one reference model for blobs. Nobody can delete an owner's stored photo
 * by sending its bytes again: not an anonymous public lookup, not another account's batch and
 * its DELETE. The owner still fetches the bytes, and the export still carries the photo.
 * Also: the owner fetches a care entry's packaging photo (a stranger gets the same 404 as for a
 * CID that does not exist), and every CID column in the schema takes part in the model.
 */
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOB_REFERENCES, NOT_BLOB_COLUMNS } from '../../shared/src/repos/evidence/blob-refs.js';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { batchForm, untilDone } from '../support/fruit-batch.js';
import { otherView, photoForm, textureImage } from '../support/images.js';
import { labelImage, labelSpec } from '../support/labels.js';
import { enrollTree } from './timeline.helpers.js';

type Account = { token: string; id: string; username: string };

describe.each<Mode>(['embedded', 'distributed'])('blob references (%s)', (mode) => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let tree: string;
  let identifyPhoto: Buffer;
  let identifyCid: string;
  let carePhoto: Buffer;
  let careCid: string;

  const fetchBlob = async (cid: string, token?: string) => {
    const res = await fetch(`${app.url}/api/blobs/${cid}`, {
      headers: { 'x-request-id': 'test-request-id', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const lookup = (bytes: Buffer) => {
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'fruit.jpg');
    return api(app.url, 'POST', '/api/fruit/lookup', { body: form });
  };
  const exportedPaths = async (): Promise<string[]> => {
    const res = await fetch(`${app.url}/api/datasci/export?limit=1000`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Number(res.headers.get('x-export-rows'))).toBe(new TextDecoder().decode(files['manifest.jsonl']!).trim().split('\n').length);
    return Object.keys(files);
  };
  /** The owner's photos are all still there: row, bytes, served to the owner, and exported. */
  const expectIntact = async () => {
    for (const [cid, bytes] of [
      [identifyCid, identifyPhoto],
      [careCid, carePhoto],
    ] as const) {
      const row = await app.container.db.query('select 1 from blobs where cid = $1', [cid]);
      expect(row.rows.length, cid).toBe(1);
      expect(Buffer.from((await app.container.blobs.get(cid))!).equals(bytes)).toBe(true);
      const served = await fetchBlob(cid, owner.token);
      expect(served.status).toBe(200);
      expect(served.bytes.equals(bytes)).toBe(true);
    }
    expect((await exportedPaths()).some((p) => p.includes(identifyCid))).toBe(true);
  };

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode, env: { JOB_WAIT_MS: '120000' } });
    [owner, stranger] = await Promise.all([signup(app.url, 'owner'), signup(app.url, 'stranger')]);
    tree = (await enrollTree(app.url, owner.token, 611, { species: 'durian' })).tree_id;
    identifyPhoto = await otherView(await textureImage(611, 256), 7);
    const q = await api(app.url, 'POST', '/api/identify', { token: owner.token, body: photoForm([identifyPhoto]) });
    expect(q.status, q.text).toBe(200);
    identifyCid = (
      await app.container.db.query<{ cid: string }>('select image_cids[1] as cid from identify_queries where owner_id = $1', [owner.id])
    ).rows[0]!.cid;
    carePhoto = await labelImage(labelSpec(3));
    const form = new FormData();
    for (const [k, v] of Object.entries({ target_type: 'tree', target_id: tree, action: 'spray', product_name: 'Dithane M-45' }))
      form.append(k, v);
    form.append('photo', new Blob([new Uint8Array(carePhoto)], { type: 'image/jpeg' }), 'pack.jpg');
    const c = await api(app.url, 'POST', '/api/care/log', { token: owner.token, body: form });
    expect(c.status, c.text).toBe(200);
    careCid = (await app.container.db.query<{ cid: string }>('select photo_cid as cid from care_entries where id = $1', [c.json.entry.id]))
      .rows[0]!.cid;
    expect(careCid).toMatch(/^b/);
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('the owner fetches their care packaging photo; a stranger gets the same 404 as a CID that does not exist', async () => {
    const own = await fetchBlob(careCid, owner.token);
    expect(own.status).toBe(200);
    expect(own.bytes.equals(carePhoto)).toBe(true);
    const missing = `${careCid.slice(0, -4)}aaaa`;
    const a = await api(app.url, 'GET', `/api/blobs/${careCid}`, { token: stranger.token });
    const b = await api(app.url, 'GET', `/api/blobs/${missing}`, { token: stranger.token });
    const anon = await api(app.url, 'GET', `/api/blobs/${careCid}`);
    expect([a.status, b.status, anon.status]).toEqual([404, 404, 404]);
    expect(a.text).toBe(b.text);
    expect(anon.text).toBe(b.text);
  });

  it('an anonymous public lookup with the bytes of an identify photo or a care packaging photo deletes nothing', async () => {
    for (const bytes of [identifyPhoto, carePhoto]) {
      const r = await lookup(bytes);
      expect(r.status, r.text).toBe(200);
    }
    await expectIntact();
  }, 120_000);

  it('another account’s batch of those bytes, then its DELETE, deletes nothing of the owner’s', async () => {
    const b = await api(app.url, 'POST', '/api/fruit/batch', {
      token: stranger.token,
      body: batchForm([
        { name: 'a.jpg', bytes: identifyPhoto },
        { name: 'b.jpg', bytes: carePhoto },
      ]),
    });
    expect(b.status, b.text).toBe(202);
    await untilDone(app, stranger.token, b.json.batch_id);
    const d = await api(app.url, 'DELETE', `/api/fruit/batch/${b.json.batch_id}`, { token: stranger.token });
    expect(d.status, d.text).toBe(200);
    await expectIntact();
  }, 240_000);

  it('a lookup photo nobody else holds is still deleted once ranked (the public route keeps nothing)', async () => {
    const fresh = await otherView(await textureImage(612, 256), 9);
    const before = (await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs')).rows[0]!.n;
    const r = await lookup(fresh);
    expect(r.status, r.text).toBe(200);
    expect((await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs')).rows[0]!.n).toBe(before);
  }, 120_000);

  it('deleting a care entry releases its photo only when nothing else names it', async () => {
    const logWith = async (photo: Buffer) => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ target_type: 'tree', target_id: tree, action: 'spray', product_name: 'Sevin' }))
        form.append(k, v);
      form.append('photo', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'pack.jpg');
      const r = await api(app.url, 'POST', '/api/care/log', { token: owner.token, body: form });
      expect(r.status, r.text).toBe(200);
      return r.json.entry as { id: string; photo_cid: string };
    };
    const hasBlob = async (cid: string) =>
      (await app.container.db.query('select 1 from blobs where cid = $1', [cid])).rows.length === 1 && (await app.container.blobs.has(cid));
    // A second entry with the same packaging photo as the first: deleting it keeps the photo.
    const twin = await logWith(carePhoto);
    expect(twin.photo_cid).toBe(careCid);
    expect((await api(app.url, 'POST', '/api/care/delete', { token: owner.token, form: { id: twin.id } })).status).toBe(200);
    expect(await hasBlob(careCid)).toBe(true);
    // A photo only one entry names goes with that entry.
    const lone = await logWith(await labelImage(labelSpec(4)));
    expect(await hasBlob(lone.photo_cid)).toBe(true);
    expect((await api(app.url, 'POST', '/api/care/delete', { token: owner.token, form: { id: lone.id } })).status).toBe(200);
    expect(await hasBlob(lone.photo_cid)).toBe(false);
    await expectIntact();
  }, 120_000);

  it('every column that holds a CID takes part in the reference model', async () => {
    const cols = await app.container.db.query<{ t: string; c: string }>(
      `select table_name as t, column_name as c from information_schema.columns
        where table_schema = current_schema() and (column_name = 'cid' or column_name like '%\\_cid' or column_name like '%\\_cids')`,
    );
    const known = new Set([...BLOB_REFERENCES.map((r) => `${r.table}.${r.column}`), ...NOT_BLOB_COLUMNS]);
    const unknown = cols.rows
      .map((r) => `${r.t}.${r.c}`)
      .filter((x) => !known.has(x) && !x.startsWith('blobs.') && !x.startsWith('upload_staging.'));
    expect(unknown).toEqual([]);
    // And the model names only columns that exist.
    const present = new Set(cols.rows.map((r) => `${r.t}.${r.c}`));
    for (const r of BLOB_REFERENCES) expect(present.has(`${r.table}.${r.column}`), `${r.table}.${r.column}`).toBe(true);
  });
});
