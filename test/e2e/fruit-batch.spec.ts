import { zipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { batchForm, followEvents, surface, untilDone } from '../support/fruit-batch.js';
import { blankImage, otherView, photoForm } from '../support/images.js';
import { uniqueName } from '../support/postgres.js';

const post = (app: TestApp, path: string, form: FormData, token: string) => api(app.url, 'POST', path, { body: form, token });
const PASSWORD = 'Bark-and-peel-42';

describe('fruit batches for packing houses (embedded)', () => {
  let app: TestApp;
  let owner: { token: string; username: string };
  let stranger: { token: string };
  let treeA: string;
  const targets: string[] = [];
  const decoys: string[] = [];
  const queries: { name: string; bytes: Buffer }[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'packer');
    stranger = await signup(app.url, 'other');
    const trees: string[] = [];
    for (const seed of [801, 802]) {
      const s = await surface(seed);
      const r = await post(
        app,
        '/api/enroll',
        photoForm([await otherView(s, 1), await otherView(s, 2)], { species: 'pomelo' }),
        owner.token,
      );
      expect(r.status, r.text).toBe(200);
      trees.push(r.json.tree_id);
    }
    treeA = trees[0]!;
    // Each target fruit hangs on tree A. Its twin on tree B was enrolled from a photo almost identical
    // to the query (the same peel, the same framing): without narrowing the twin ranks first.
    for (const seed of [811, 812, 813]) {
      const s = await surface(seed);
      const query = await otherView(s, seed * 10 + 9);
      queries.push({ name: `q-${seed}.jpg`, bytes: query });
      const t = await post(
        app,
        '/api/fruit/enroll',
        photoForm([await otherView(s, seed * 10 + 1), await otherView(s, seed * 10 + 2)], { tree_id: treeA }),
        owner.token,
      );
      expect(t.status, t.text).toBe(200);
      targets.push(t.json.fruit_id);
      const twin = await sharp(query).modulate({ brightness: 1.04 }).jpeg({ quality: 90 }).toBuffer();
      const d = await post(app, '/api/fruit/enroll', photoForm([twin], { tree_id: trees[1]!, name: `twin ${seed}` }), owner.token);
      expect(d.status, d.text).toBe(200);
      decoys.push(d.json.fruit_id);
    }
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  let batchId: string;
  let narrowedRows: any[];

  it('accepts photos and an archive, fails only the bad rows, reports progress by SSE, and narrows by tree_id', async () => {
    const blank = await blankImage(200);
    // A folder of the archive is one fruit (issue 41): crate-7 is one row with two views, one of them not a photo.
    const archive = zipSync({
      'crate-7/q-811-again.jpg': queries[0]!.bytes,
      'crate-7/notes.txt': new TextEncoder().encode('not a photo'),
      '__MACOSX/crate-7/._q-811-again.jpg': new Uint8Array([0, 5, 22, 7]),
    });
    const form = batchForm(
      [...queries, { name: 'readme.txt', bytes: Buffer.from('this is not an image, it is text') }, { name: 'lens-cap.jpg', bytes: blank }],
      { tree_id: treeA },
      archive,
    );
    const r = await post(app, '/api/fruit/batch', form, owner.token);
    expect(r.status, r.text).toBe(202);
    batchId = r.json.batch_id;
    expect(r.json).toEqual({
      ok: true,
      batch_id: batchId,
      total: 6,
      status: 'running',
      links: {
        self: `/api/fruit/batch/${batchId}`,
        events: `/api/fruit/batch/${batchId}/events`,
        csv: `/api/fruit/batch/${batchId}/results.csv`,
      },
    });
    const sse = await followEvents(app, batchId, { authorization: `Bearer ${owner.token}` });
    expect(sse.status).toBe(200);
    expect(sse.type).toContain('text/event-stream');
    const names = sse.events.map((e) => e.event);
    expect(names.at(-1)).toBe('done');
    expect(names.slice(0, -1).every((n) => n === 'progress')).toBe(true);
    expect(sse.events.at(-1)!.data).toEqual({ done: 6, failed: 2, total: 6 });
    expect(sse.events.at(-2)!.data).toEqual({ done: 6, failed: 2, total: 6 });
    const dones = sse.events.map((e) => e.data.done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));

    const b = await api(app.url, 'GET', `/api/fruit/batch/${batchId}`, { token: owner.token });
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ ok: true, batch_id: batchId, status: 'done', total: 6, done: 6, failed: 2 });
    expect(typeof b.json.finished_at).toBe('string');
    const rows = b.json.rows;
    expect(rows.map((x: any) => x.file_name)).toEqual(['q-811.jpg', 'q-812.jpg', 'q-813.jpg', 'readme.txt', 'lens-cap.jpg', 'crate-7']);
    expect(rows.map((x: any) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rows[5].views.map((v: any) => [v.file_name, v.status])).toEqual([
      ['crate-7/q-811-again.jpg', 'used'],
      ['crate-7/notes.txt', 'failed'],
    ]);
    narrowedRows = rows;
    // Narrowed to tree A, every query finds its own fruit.
    expect(rows.slice(0, 3).map((x: any) => x.fruit_id)).toEqual(targets);
    expect(rows[5].fruit_id).toBe(targets[0]);
    for (const x of [rows[0], rows[1], rows[2], rows[5]]) {
      expect(x.status).toBe('done');
      expect(['match', 'uncertain']).toContain(x.verdict);
      expect(x.probability).toBeGreaterThan(0);
      expect(x.candidate).toBe(x.fruit_id);
    }
    expect(rows[3]).toMatchObject({ status: 'failed' });
    expect(rows[3].reason).toContain('readme.txt');
    expect(rows[4]).toMatchObject({ status: 'failed' });
    expect(rows[4].reason).toMatch(/lens-cap\.jpg/);
    expect(rows[5].views[1].reason).toContain('crate-7/notes.txt');
    expect(rows[3].fruit_id).toBeUndefined();
  });

  it('without tree_id the twins on the other tree outrank the right fruit: narrowing improves rank', async () => {
    const r = await post(app, '/api/fruit/batch', batchForm(queries), owner.token);
    expect(r.status).toBe(202);
    const wide = (await untilDone(app, owner.token, r.json.batch_id)).rows;
    const rankOf = (row: any, k: number) => (row.fruit_id === targets[k] ? 1 : 2);
    const wideRanks = wide.map(rankOf);
    const narrowRanks = narrowedRows.slice(0, 3).map(rankOf);
    expect(narrowRanks).toEqual([1, 1, 1]);
    expect(wide.map((x: any) => x.fruit_id)).toEqual(decoys);
    expect(wide.map((x: any) => x.candidate)).toEqual(['twin 811', 'twin 812', 'twin 813']);
    expect(wideRanks.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThan(narrowRanks.reduce((a: number, b: number) => a + b, 0));
  });

  it('serves the rows as CSV, with reasons in the asked language', async () => {
    const res = await fetch(`${app.url}/api/fruit/batch/${batchId}/results.csv`, {
      headers: { authorization: `Bearer ${owner.token}`, 'accept-language': 'en' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const lines = (await res.text()).trimEnd().split('\r\n');
    // `views` was added last (issue 41): the columns before it keep their order.
    expect(lines[0]).toBe(
      'index,file_name,status,fruit_id,candidate,probability,verdict,reason,fruit_name,tree_id,tree_name,tree_code,views,query_id,' +
        'fruit_short_code,decision,decided_fruit_id,decided_fruit_name,decided_fruit_short_code,decided_tree_name,decided_tree_code',
    );
    expect(lines.length).toBe(7);
    expect(lines[1]!.startsWith(`0,q-811.jpg,done,${targets[0]},${targets[0]},`)).toBe(true);
    expect(lines[4]).toMatch(/^3,readme\.txt,failed,,,,,"?File "*readme\.txt"* is not a supported.*,,,,readme\.txt,{8}$/);
    const vi = await fetch(`${app.url}/api/fruit/batch/${batchId}/results.csv`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect((await vi.text()).split('\r\n')[4]).toContain('không phải');
  });

  it('streams events to a browser session cookie too (EventSource cannot send headers)', async () => {
    const login = await api(app.url, 'POST', '/api/login', { json: { username: owner.username, password: PASSWORD } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const sse = await followEvents(app, batchId, { cookie });
    expect(sse.status).toBe(200);
    expect(sse.events.map((e) => e.event)).toEqual(['progress', 'done']);
    expect((await followEvents(app, batchId, {})).status).toBe(401);
  });

  it("lists the caller's batches newest first; another account gets 404 everywhere", async () => {
    const list = await api(app.url, 'GET', '/api/fruit/batches', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.json.count).toBe(2);
    expect(list.json.batches[1].batch_id).toBe(batchId);
    expect(list.json.batches[1]).toMatchObject({ status: 'done', total: 6, done: 6, failed: 2, tree_id: treeA });
    expect((await api(app.url, 'GET', '/api/fruit/batches', { token: stranger.token })).json.count).toBe(0);
    for (const [m, p] of [
      ['GET', ''],
      ['GET', '/events'],
      ['GET', '/results.csv'],
      ['DELETE', ''],
    ] as const) {
      const r = await api(app.url, m, `/api/fruit/batch/${batchId}${p}`, { token: stranger.token });
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.json.code).toBe('not_found');
    }
    const foreignTree = await post(app, '/api/fruit/batch', batchForm(queries.slice(0, 1), { tree_id: treeA }), stranger.token);
    expect(foreignTree.status).toBe(404);
  });

  it('a retried job never adds or recounts a row', async () => {
    const row = await app.container.db.query<{ cid: string }>('select cid from fruit_batch_rows where batch_id = $1 and idx = 0', [
      batchId,
    ]);
    const ownerId = (await app.container.db.query<{ owner_id: string }>('select owner_id from fruit_batches where id = $1', [batchId]))
      .rows[0]!.owner_id;
    // The same payload again under a new job id: what a retry after a worker died amounts to.
    const id = await app.container.queue.enqueue(
      'fruit_batch_item',
      { owner_id: ownerId, batch_id: batchId, index: 0, cid: row.rows[0]!.cid, filters: {} },
      { jobId: uniqueName('retry-') },
    );
    const rec = await app.container.queue.waitFor(id, 60_000);
    expect(rec?.state).toBe('completed');
    expect(rec?.result).toEqual({ skipped: true });
    const b = await api(app.url, 'GET', `/api/fruit/batch/${batchId}`, { token: owner.token });
    expect(b.json).toMatchObject({ total: 6, done: 6, failed: 2 });
    expect(b.json.rows[0].fruit_id).toBe(targets[0]);
    const n = await app.container.db.query<{ n: number }>('select count(*)::int as n from fruit_batch_rows where batch_id = $1', [batchId]);
    expect(n.rows[0]!.n).toBe(6);
  });

  it('deletes a batch with its rows and the photos nothing else uses', async () => {
    const cids = (
      await app.container.db.query<{ cid: string }>('select cid from fruit_batch_rows where batch_id = $1 and cid is not null', [batchId])
    ).rows.map((x) => x.cid);
    const del = await api(app.url, 'DELETE', `/api/fruit/batch/${batchId}`, { token: owner.token });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ ok: true, batch_id: batchId, deleted: true });
    expect((await api(app.url, 'GET', `/api/fruit/batch/${batchId}`, { token: owner.token })).status).toBe(404);
    expect((await app.container.db.query('select 1 from fruit_batch_rows where batch_id = $1', [batchId])).rows.length).toBe(0);
    // The same query photos are still held by the other batch; the blank photo was only in this one.
    const left = await app.container.db.query<{ cid: string }>('select cid from blobs where cid = any($1)', [cids]);
    expect(left.rows.length).toBe(3);
    expect((await api(app.url, 'DELETE', `/api/fruit/batch/${batchId}`, { token: owner.token })).status).toBe(404);
  });
});

describe('fruit batch limits', () => {
  let app: TestApp;
  let owner: { token: string };
  beforeAll(async () => {
    app = await startTestApp({ env: { BATCH_MAX_PHOTOS: '3' } });
    owner = await signup(app.url, 'limits');
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  const tiny = async (n: number) =>
    Promise.all(Array.from({ length: n }, async (_, i) => ({ name: `t${i}.jpg`, bytes: await blankImage(64) })));

  it('refuses more than BATCH_MAX_PHOTOS photos (files and archive entries together) with 413 and keeps nothing', async () => {
    const blobs = async () => (await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs')).rows[0]!.n;
    const before = await blobs();
    const archive = zipSync({ 'a.jpg': (await tiny(1))[0]!.bytes, 'b.jpg': await blankImage(65) });
    const r = await post(app, '/api/fruit/batch', batchForm(await tiny(2), {}, archive), owner.token);
    expect(r.status).toBe(413);
    expect(r.json.code).toBe('batch_too_many_photos');
    expect(await blobs()).toBe(before);
    expect((await app.container.db.query('select 1 from fruit_batches')).rows.length).toBe(0);
  });

  it('refuses an empty batch, a broken archive and an anonymous caller', async () => {
    expect((await post(app, '/api/fruit/batch', batchForm([]), owner.token)).status).toBe(422);
    const broken = await post(app, '/api/fruit/batch', batchForm([], {}, Buffer.from('PK\u0003\u0004 definitely not a zip')), owner.token);
    expect(broken.status).toBe(422);
    expect(broken.json.code).toBe('batch_archive_invalid');
    expect((await api(app.url, 'POST', '/api/fruit/batch', { body: batchForm(await tiny(1)) })).status).toBe(401);
  });

  it('documents the batch routes in the OpenAPI', async () => {
    const doc = (await api(app.url, 'GET', '/openapi.json')).json;
    const body = doc.paths['/api/fruit/batch'].post.requestBody.content['multipart/form-data'].schema.properties;
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['files', 'archive', 'tree_id', 'farm_id']));
    expect(doc.paths['/api/fruit/batch/{batch_id}/events'].get.responses['200'].content['text/event-stream']).toBeDefined();
    expect(doc.paths['/api/fruit/batch/{batch_id}'].delete).toBeDefined();
  });
});
