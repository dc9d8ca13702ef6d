/**
 * Several views per fruit in a packing-house batch (issue 41): photos in one folder of the archive,
 * or loose photos named `fruit__view`, are one fruit, decided from all of them as one identify
 * query, with one row, one progress count and one CSV line; a photo naming no fruit is its own.
 */
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { batchForm, followEvents, surface } from '../support/fruit-batch.js';
import { blankImage, otherView, photoForm } from '../support/images.js';
import { uniqueName } from '../support/postgres.js';
import { signupAdmin } from '../support/admin.js';

const post = (app: TestApp, path: string, form: FormData, token: string) => api(app.url, 'POST', path, { body: form, token });

describe('fruit batches with several views per fruit (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  let tree: string;
  /** Enrolled fruit by peel seed. */
  const fruitIds = new Map<number, string>();
  /** Query views by peel seed, never the enrolled photos themselves. */
  const views = new Map<number, Buffer[]>();
  let batchId: string;
  let rows: any[];

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'line');
    const t = await post(
      app,
      '/api/enroll',
      photoForm([await otherView(await surface(930), 1), await otherView(await surface(930), 2)], { species: 'mango' }),
      owner.token,
    );
    expect(t.status, t.text).toBe(200);
    tree = t.json.tree_id;
    for (const seed of [931, 932, 933, 934]) {
      const s = await surface(seed);
      const f = await post(
        app,
        '/api/fruit/enroll',
        photoForm([await otherView(s, seed * 10 + 1), await otherView(s, seed * 10 + 2)], { tree_id: tree }),
        owner.token,
      );
      expect(f.status, f.text).toBe(200);
      fruitIds.set(seed, f.json.fruit_id);
      views.set(seed, [await otherView(s, seed * 10 + 5), await otherView(s, seed * 10 + 6), await otherView(s, seed * 10 + 7)]);
    }
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('makes one row per fruit from folders and `fruit__view` names, refuses a fruit over the view cap on its row, and keeps an ungrouped photo its own row', async () => {
    const v = (seed: number, i: number) => views.get(seed)![i]!;
    const blank = await blankImage(200);
    const tiny = await blankImage(64);
    const archive = zipSync({
      'fruit-17/a.jpg': v(932, 0),
      'fruit-17/b.jpg': v(932, 1),
      'fruit-17/c.jpg': v(932, 2),
      // Nine views: one more than BATCH_MAX_VIEWS allows.
      ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`crowded/v${i}.jpg`, tiny])),
      'top.jpg': v(934, 0),
    });
    const form = batchForm(
      [
        { name: 'fruit-A__cam1.jpg', bytes: v(931, 0) },
        { name: 'loose.jpg', bytes: v(933, 0) },
        { name: 'fruit-A__cam2.jpg', bytes: v(931, 1) },
        { name: 'fruit-B__cam1.jpg', bytes: v(933, 1) },
        // Passes intake, refused by the worker as unusable: this view fails, the others decide.
        { name: 'fruit-B__cam2.jpg', bytes: blank },
        // Refused at intake: not an image.
        { name: 'fruit-B__cam3.txt', bytes: Buffer.from('a note, not a photo') },
        { name: 'fruit-C__a.txt', bytes: Buffer.from('no photo here') },
        { name: 'fruit-C__b.txt', bytes: Buffer.from('nor here') },
      ],
      { tree_id: tree },
      archive,
    );
    const r = await post(app, '/api/fruit/batch', form, owner.token);
    expect(r.status, r.text).toBe(202);
    batchId = r.json.batch_id;
    expect(r.json.total).toBe(7);

    const sse = await followEvents(app, batchId, { authorization: `Bearer ${owner.token}` });
    expect(sse.events.at(-1)).toEqual({ event: 'done', data: { done: 7, failed: 2, total: 7 } });
    for (const e of sse.events) expect(e.data.total).toBe(7);

    const b = await api(app.url, 'GET', `/api/fruit/batch/${batchId}`, { token: owner.token, headers: { 'accept-language': 'en' } });
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ status: 'done', total: 7, done: 7, failed: 2 });
    rows = b.json.rows;
    expect(rows.map((x: any) => x.file_name)).toEqual(['fruit-A', 'loose.jpg', 'fruit-B', 'fruit-C', 'fruit-17', 'crowded', 'top.jpg']);
    expect(rows.map((x: any) => x.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(rows.map((x: any) => x.views.map((w: any) => w.file_name))).toEqual([
      ['fruit-A__cam1.jpg', 'fruit-A__cam2.jpg'],
      ['loose.jpg'],
      ['fruit-B__cam1.jpg', 'fruit-B__cam2.jpg', 'fruit-B__cam3.txt'],
      ['fruit-C__a.txt', 'fruit-C__b.txt'],
      ['fruit-17/a.jpg', 'fruit-17/b.jpg', 'fruit-17/c.jpg'],
      Array.from({ length: 9 }, (_, i) => `crowded/v${i}.jpg`),
      ['top.jpg'],
    ]);
    const [a, loose, fb, fc, f17, crowded, top] = rows;

    // Every decided fruit found its own.
    expect(a).toMatchObject({ status: 'done', fruit_id: fruitIds.get(931) });
    expect(loose).toMatchObject({ status: 'done', fruit_id: fruitIds.get(933) });
    expect(fb).toMatchObject({ status: 'done', fruit_id: fruitIds.get(933) });
    expect(f17).toMatchObject({ status: 'done', fruit_id: fruitIds.get(932) });
    expect(top).toMatchObject({ status: 'done', fruit_id: fruitIds.get(934) });
    for (const x of [a, loose, fb, f17, top]) {
      expect(['match', 'uncertain']).toContain(x.verdict);
      expect(x.reason).toBeUndefined();
      expect(x.photo_url).toBe(x.views[0].photo_url);
    }
    for (const x of [a, f17]) {
      expect(x.views.map((w: any) => w.status)).toEqual(x.views.map(() => 'used'));
      expect(new Set(x.views.map((w: any) => w.photo_url)).size).toBe(x.views.length);
    }

    // One view unusable, one not an image: each fails on its own, naming its file; the first decides.
    expect(fb.views.map((w: any) => w.status)).toEqual(['used', 'failed', 'failed']);
    expect(fb.views[1].reason).toContain('fruit-B__cam2.jpg');
    expect(fb.views[1].photo_url).toMatch(/^\/api\/blobs\//);
    expect(fb.views[2].reason).toContain('fruit-B__cam3.txt');
    expect(fb.views[2].photo_url).toBeUndefined();

    // No usable view at all: the fruit fails, each view with its own reason.
    expect(fc.status).toBe('failed');
    expect(fc.reason).toBe('None of the 2 photos of fruit "fruit-C" could be used; each photo carries its own reason.');
    expect(fc.views.map((w: any) => w.status)).toEqual(['failed', 'failed']);
    expect(fc.views[0].reason).toContain('fruit-C__a.txt');

    // Over the cap: refused on its row, its photos listed and not kept.
    expect(crowded.status).toBe('failed');
    expect(crowded.reason).toBe(
      'Fruit "crowded" has 9 photos, more than the 8 allowed for one fruit; it was not identified, and the other fruit of the batch go on.',
    );
    expect(crowded.views.every((w: any) => w.photo_url === undefined)).toBe(true);
    expect(crowded.fruit_id).toBeUndefined();

    // An ungrouped photo is one row with its one view, as before.
    expect(loose.views).toEqual([{ file_name: 'loose.jpg', status: 'used', photo_url: loose.photo_url }]);

    // Every view's photo is readable by the batch's owner.
    const photo = await fetch(`${app.url}${f17.views[2].photo_url}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(photo.status).toBe(200);
  });

  it('decides a fruit exactly as /api/fruit/identify decides the same photos sent as one query', async () => {
    for (const [k, seed, n] of [
      [0, 931, 2],
      [4, 932, 3],
    ] as const) {
      const q = await post(app, '/api/fruit/identify', photoForm(views.get(seed)!.slice(0, n), { tree_id: tree }), owner.token);
      expect(q.status, q.text).toBe(200);
      const top = q.json.candidates[0];
      expect({ verdict: rows[k].verdict, fruit_id: rows[k].fruit_id, probability: rows[k].probability }).toEqual({
        verdict: q.json.verdict,
        fruit_id: top.individual_id,
        probability: top.probability,
      });
    }
  });

  it('serves one CSV line per fruit, its views listed in a `views` column after the existing ones', async () => {
    const res = await fetch(`${app.url}/api/fruit/batch/${batchId}/results.csv`, {
      headers: { authorization: `Bearer ${owner.token}`, 'accept-language': 'en' },
    });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'index,file_name,status,fruit_id,candidate,probability,verdict,reason,fruit_name,tree_id,tree_name,tree_code,views,query_id,' +
        'fruit_short_code,decision,decided_fruit_id,decided_fruit_name,decided_fruit_short_code,decided_tree_name,decided_tree_code',
    );
    expect(lines.length).toBe(8);
    expect(lines[1]!.startsWith(`0,fruit-A,done,${rows[0].fruit_id},`)).toBe(true);
    expect(lines[1]!).toMatch(/,fruit-A__cam1\.jpg \| fruit-A__cam2\.jpg,[0-9a-f-]{36},/);
    expect(lines[2]!).toMatch(/,loose\.jpg,[0-9a-f-]{36},/);
    expect(lines[5]!).toMatch(/,fruit-17\/a\.jpg \| fruit-17\/b\.jpg \| fruit-17\/c\.jpg,[0-9a-f-]{36},/);
    expect(lines[6]).toMatch(/^5,crowded,failed,,,,,"?Fruit ""crowded"" has 9 photos/);
  });

  it('an undecided fruit waits in the review queue with its views; a matched one does not', async () => {
    const queue = await api(app.url, 'GET', '/api/review/queue?kind=fruit&limit=100', { token: owner.token });
    expect(queue.status).toBe(200);
    const waiting = new Map<string, any>(queue.json.items.map((x: any) => [x.query_id, x]));
    const decided = rows.filter((r) => r.status === 'done');
    expect(decided.length).toBeGreaterThan(0);
    for (const r of decided) {
      if (r.verdict === 'match') {
        expect(waiting.has(r.query_id)).toBe(false);
        continue;
      }
      const item = waiting.get(r.query_id);
      expect(item).toMatchObject({ source: 'batch', verdict: r.verdict });
      const used = r.views.filter((v: any) => v.status === 'used').map((v: any) => v.photo_url);
      expect(item.photos.map((p: any) => p.url)).toEqual(used);
    }
  });

  it('a decided fruit is an answer like any other: labelled by its query id, it becomes a several-view calibration sample', async () => {
    const fruitA = rows[0];
    expect(fruitA.query_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const label = await api(app.url, 'POST', '/api/fruit/identify_verdict', {
      token: owner.token,
      form: { query_id: fruitA.query_id, verdict: 'correct' },
    });
    expect(label.status).toBe(200);
    // Another owner cannot label it: not theirs looks like not there.
    const stranger = await signup(app.url);
    const foreign = await api(app.url, 'POST', '/api/fruit/identify_verdict', {
      token: stranger.token,
      form: { query_id: fruitA.query_id, verdict: 'wrong' },
    });
    expect(foreign.status).toBe(404);
    const admin = await signupAdmin(app, uniqueName('batchop_'));
    const run = await api(app.url, 'POST', '/api/admin/calibration/pooled/run', { token: admin.token });
    expect(run.status).toBe(200);
    const sample = await app.container.db.query<{ views: number; kind: string; outcome: string }>(
      'select views, kind, outcome from calibration_samples where ref = $1',
      [fruitA.query_id],
    );
    expect(sample.rows).toEqual([{ views: 2, kind: 'fruit', outcome: 'right' }]);
  });

  it('a job retried after a worker died before writing gives the same row and view failures, counted once', async () => {
    const db = app.container.db;
    const ownerId = (await db.query<{ owner_id: string }>('select owner_id from fruit_batches where id = $1', [batchId])).rows[0]!.owner_id;
    const cid = (await db.query<{ cid: string }>('select cid from fruit_batch_rows where batch_id = $1 and idx = 2', [batchId])).rows[0]!
      .cid;
    // The row and its views' worker-time failures are written in one transaction: a worker that died
    // before it committed left the row pending and the unusable view without its reason.
    await db.query(
      `update fruit_batch_rows set status = 'pending', fruit_id = null, candidate = null, probability = null, verdict = null, finished_at = null where batch_id = $1 and idx = 2`,
      [batchId],
    );
    await db.query(`update fruit_batch_views set reason_code = null, reason_params = null where batch_id = $1 and idx = 2 and view = 1`, [
      batchId,
    ]);
    await db.query(`update fruit_batches set status = 'running', finished_at = null where id = $1`, [batchId]);
    for (let i = 0; i < 2; i++) {
      const id = await app.container.queue.enqueue(
        'fruit_batch_item',
        { owner_id: ownerId, batch_id: batchId, index: 2, cid, filters: { tree_id: tree } },
        { jobId: uniqueName('retry-') },
      );
      const rec = await app.container.queue.waitFor(id, 60_000);
      expect(rec?.state).toBe('completed');
      expect(rec?.result).toEqual(i === 0 ? { written: true, status: 'done' } : { skipped: true });
    }
    const b = await api(app.url, 'GET', `/api/fruit/batch/${batchId}`, { token: owner.token, headers: { 'accept-language': 'en' } });
    expect(b.json).toMatchObject({ status: 'done', total: 7, done: 7, failed: 2 });
    expect(b.json.rows[2]).toEqual(rows[2]);
    const n = await db.query<{ rows: number; views: number }>(
      'select (select count(*)::int from fruit_batch_rows where batch_id = $1) as rows, (select count(*)::int from fruit_batch_views where batch_id = $1) as views',
      [batchId],
    );
    expect(n.rows[0]).toEqual({ rows: 7, views: 21 });
  });

  it('deleting the batch drops every view and the photos nothing else uses', async () => {
    const db = app.container.db;
    // fruit-B's and top.jpg's photos are in no identify query.
    const only = (
      await db.query<{ cid: string }>('select cid from fruit_batch_views where batch_id = $1 and idx in (2, 6) and cid is not null', [
        batchId,
      ])
    ).rows.map((x) => x.cid);
    expect(only.length).toBe(3);
    const del = await api(app.url, 'DELETE', `/api/fruit/batch/${batchId}`, { token: owner.token });
    expect(del.status).toBe(200);
    expect((await db.query('select 1 from fruit_batch_views where batch_id = $1', [batchId])).rows.length).toBe(0);
    expect((await db.query('select cid from blobs where cid = any($1)', [only])).rows.length).toBe(0);
  });
});
