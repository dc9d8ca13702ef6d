/**
 * Issue 24: batch rows and the batch CSV name the fruit and its tree (name and printed code)
 * instead of bare ids, with thumbnails; the list of past batches carries thumbnails and the tree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { batchForm, untilDone } from '../support/fruit-batch.js';
import { photoForm, textureImage } from '../support/images.js';

describe('batch rows with names and codes (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  let tree: { tree_id: string; code: string };
  let fruitId: string;
  let batchId: string;
  let peel: Buffer;

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'namer');
    const t = await api(app.url, 'POST', '/api/enroll', {
      token: owner.token,
      body: photoForm([await textureImage(6101, 320)], { species: 'pomelo', name: 'Cây bưởi góc ao' }),
    });
    expect(t.status, t.text).toBe(200);
    tree = { tree_id: t.json.tree_id, code: t.json.code };
    peel = await textureImage(6102, 320);
    const f = await api(app.url, 'POST', '/api/fruit/enroll', {
      token: owner.token,
      body: photoForm([peel], { tree_id: tree.code, name: 'Bưởi, số 1' }),
    });
    expect(f.status, f.text).toBe(200);
    fruitId = f.json.fruit_id;
    const b = await api(app.url, 'POST', '/api/fruit/batch', {
      token: owner.token,
      body: batchForm(
        [
          { name: 'crate-1.jpg', bytes: peel },
          { name: 'note.txt', bytes: Buffer.from('not a photo') },
        ],
        { tree_id: tree.code },
      ),
    });
    expect(b.status, b.text).toBe(202);
    batchId = b.json.batch_id;
    await untilDone(app, owner.token, batchId);
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("rows carry the fruit's name and thumbnail, its tree's name and code, and the row's photo", async () => {
    const b = await api(app.url, 'GET', `/api/fruit/batch/${batchId}`, { token: owner.token });
    expect(b.status).toBe(200);
    const [hit, bad] = b.json.rows;
    expect(hit).toMatchObject({
      status: 'done',
      fruit_id: fruitId,
      fruit_name: 'Bưởi, số 1',
      tree_id: tree.tree_id,
      tree_name: 'Cây bưởi góc ao',
      tree_code: tree.code,
    });
    expect(hit.fruit_thumbnail).toMatch(/^\/api\/blobs\//);
    expect(bad).toMatchObject({ status: 'failed' });
    expect(bad.fruit_name).toBeUndefined();
    const photo = await fetch(`${app.url}${hit.photo_url}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(photo.status).toBe(200);
    expect(Buffer.from(await photo.arrayBuffer()).equals(peel)).toBe(true);
    const thumb = await fetch(`${app.url}${hit.fruit_thumbnail}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(thumb.status).toBe(200);
    // The batch photo is the owner's only: a stranger gets the plain 404 of a missing blob.
    const stranger = await signup(app.url, 'peeker');
    const theirs = await fetch(`${app.url}${hit.photo_url}`, { headers: { authorization: `Bearer ${stranger.token}` } });
    const missing = await fetch(`${app.url}/api/blobs/${hit.photo_url.split('/').pop()!.slice(0, -4)}aaaa`, {
      headers: { authorization: `Bearer ${stranger.token}` },
    });
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    const strip = (j: Record<string, unknown>) => ({ ...j, request_id: 0 });
    expect(strip((await theirs.json()) as Record<string, unknown>)).toEqual(strip((await missing.json()) as Record<string, unknown>));
  });

  it('the CSV keeps its first columns and adds fruit name, tree id, tree name and tree code (quoted where needed)', async () => {
    const res = await fetch(`${app.url}/api/fruit/batch/${batchId}/results.csv`, {
      headers: { authorization: `Bearer ${owner.token}`, 'accept-language': 'en' },
    });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split('\r\n');
    // The fruit's views (issue 41) and its answer's query id come last, so the columns before keep their places.
    expect(lines[0]).toBe(
      'index,file_name,status,fruit_id,candidate,probability,verdict,reason,fruit_name,tree_id,tree_name,tree_code,views,query_id,' +
        'fruit_short_code,decision,decided_fruit_id,decided_fruit_name,decided_fruit_short_code,decided_tree_name,decided_tree_code',
    );
    expect(lines[1]!.startsWith(`0,crate-1.jpg,done,${fruitId},`)).toBe(true);
    expect(lines[1]!).toContain(`,"Bưởi, số 1",${tree.tree_id},Cây bưởi góc ao,${tree.code},crate-1.jpg,`);
    expect(lines[1]!).toMatch(/,[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12},[0-9A-F]{8},{6}$/);
    expect(lines[2]!.endsWith(',,,,note.txt,,,,,,,,')).toBe(true);
  });

  it("past batches are listed with thumbnails and the tree's name and code", async () => {
    const r = await api(app.url, 'GET', '/api/fruit/batches', { token: owner.token });
    expect(r.status).toBe(200);
    const mine = r.json.batches.find((x: { batch_id: string }) => x.batch_id === batchId);
    expect(mine.tree).toEqual({ tree_id: tree.tree_id, name: 'Cây bưởi góc ao', code: tree.code });
    expect(mine.thumbnails).toHaveLength(1);
    const t = await fetch(`${app.url}${mine.thumbnails[0].url}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(t.status).toBe(200);
  });
});
