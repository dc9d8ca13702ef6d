import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../shared/src/evidence/chain.js';
import { verifyInclusion } from '../../shared/src/evidence/merkle.js';
import { verifyConsistency } from '../../shared/src/evidence/merkle-consistency.js';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { uniqueName } from '../support/postgres.js';
import { enrollTree } from './timeline.helpers.js';

describe.each<Mode>(['embedded', 'distributed'])('timelines (%s)', (mode) => {
  let app: TestApp;
  let owner: { token: string; id: string };
  let other: { token: string; id: string };
  let tree: string;
  let farm: string;
  const post = (path: string, json: unknown, token?: string) => api(app.url, 'POST', path, { json, ...(token ? { token } : {}) });
  const get = (path: string, token?: string) => api(app.url, 'GET', path, token ? { token } : {});

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode });
    owner = await signup(app.url, 'owner');
    other = await signup(app.url, 'other');
    farm = uniqueName('farm-');
    tree = (await enrollTree(app.url, owner.token, 11, { farm_id: farm })).tree_id;
    // Published, so guests and other accounts may read its timeline (a private one is a 404 to them).
    expect((await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: owner.token, json: { level: 'public' } })).status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('starts each tree chain with the enrolment event that names its record', async () => {
    const t = await get(`/api/tree/${tree}/timeline`, owner.token);
    expect(t.status).toBe(200);
    expect(t.json.chain_ok).toBe(true);
    expect(t.json.events[0]).toMatchObject({
      seq: 0,
      prev_hash: '0'.repeat(64),
      visibility: 'public',
      approval: 'approved',
      body: { type: 'enroll' },
    });
    expect(t.json.events[0].body.record_cid).toMatch(/^bafy/);
    expect(t.json.events[0].body.code).toMatch(/^MKL-[0-9b-hjkmnp-z]{7}-[2-9A-HJ-NP-Z]{8}$/);
  });

  it('applies every state of the visibility table', async () => {
    const byOwner = await post(`/api/tree/${tree}/event`, { type: 'note', text: 'owner' }, owner.token);
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.event).toMatchObject({ visibility: 'public', approval: 'approved', author_role: 'owner' });
    const byOther = await post(`/api/tree/${tree}/event`, { type: 'note', text: 'visitor' }, other.token);
    expect(byOther.status).toBe(200);
    expect(byOther.json.event).toMatchObject({ visibility: 'private', approval: 'pending', author_role: 'contributor' });
    // A contribution waits outside the chain: no link, no leaf.
    expect(byOther.json.event.prev_hash).toBeUndefined();
    expect(byOther.json.event.leaf_hash).toBeUndefined();
    const anonymous = await post(`/api/tree/${tree}/event`, { type: 'note' });
    expect(anonymous.status).toBe(401);
    for (const path of [
      '/api/tree/00000000-0000-4000-8000-000000000000/event',
      '/api/tree/not-a-uuid/event',
      `/api/animal/${tree}/event`,
      `/api/farm/${uniqueName('nofarm-')}/event`,
    ]) {
      const r = await post(path, { type: 'note' }, owner.token);
      expect(r.status, path).toBe(403);
      expect(r.json).toMatchObject({ ok: false, code: 'entity_no_owner' });
    }
    const notObject = await api(app.url, 'POST', `/api/tree/${tree}/event`, {
      token: owner.token,
      body: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(notObject.status).toBe(422);
    for (const raw of ['{"t":"a\\u0000b"}', '{"t":"\\ud800"}', '{"\\udc00":1}', '{"n":123456789012345678901}']) {
      const r = await api(app.url, 'POST', `/api/tree/${tree}/event`, {
        token: owner.token,
        body: raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status, raw).toBe(422);
    }
    const paired = await post(`/api/tree/${tree}/event`, { t: 'sầu riêng 🌳' }, owner.token);
    expect(paired.json.event.body.t).toBe('sầu riêng 🌳');
  });

  it('shows guests public and approved events only, the author their own, the owner everything', async () => {
    const secret = await post(`/api/tree/${tree}/event`, { type: 'note', text: 'pending-secret' }, other.token);
    const third = await signup(app.url, 'third');
    const texts = (r: { json: any }) => r.json.events.map((e: any) => e.body.text);
    const asOwner = await get(`/api/tree/${tree}/timeline`, owner.token);
    const asGuest = await get(`/api/tree/${tree}/timeline`);
    const asThird = await get(`/api/tree/${tree}/timeline`, third.token);
    const asAuthor = await get(`/api/tree/${tree}/timeline`, other.token);
    expect(texts(asOwner)).toContain('pending-secret');
    expect(texts(asGuest)).not.toContain('pending-secret');
    expect(texts(asThird)).not.toContain('pending-secret');
    expect(texts(asAuthor)).toContain('pending-secret');
    expect(asGuest.json.events.every((e: any) => e.visibility === 'public' && e.approval === 'approved')).toBe(true);
    expect(asGuest.json.events[0].seq).toBeUndefined();
    expect(asGuest.json.chain_ok).toBe(true);
    // Approval: only the owner (anyone else gets the 404 of a missing event); it appends the event now.
    expect((await post(`/api/tree/${tree}/event/${secret.json.event.event_id}/approve`, {}, other.token)).status).toBe(404);
    const approved = await post(`/api/tree/${tree}/event/${secret.json.event.event_id}/approve`, {}, owner.token);
    expect(approved.json.event).toMatchObject({
      event_id: secret.json.event.event_id,
      visibility: 'public',
      approval: 'approved',
      author_role: 'contributor',
    });
    expect(approved.json.event.leaf_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(approved.json.event.body._contribution).toMatchObject({ author_id: other.id, approved_by: owner.id });
    expect(texts(await get(`/api/tree/${tree}/timeline`))).toContain('pending-secret');
    expect((await get(`/api/tree/${tree}/timeline`)).json.chain_ok).toBe(true);
  });

  it('never forks under 50 concurrent appends', async () => {
    const before = (await get(`/api/tree/${tree}/timeline`, owner.token)).json.size;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(`/api/tree/${tree}/event`, { type: 'burst', i }, i % 5 ? owner.token : other.token)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const t = await get(`/api/tree/${tree}/timeline`, owner.token);
    expect(t.json.chain_ok).toBe(true);
    // The owner's 40 are chained; the other account's 10 wait outside the chain.
    expect(t.json.size).toBe(before + 40);
    const chained = t.json.events.filter((e: any) => e.seq !== undefined);
    expect(chained.map((e: any) => e.seq)).toEqual([...Array(before + 40).keys()]);
    expect(new Set(chained.map((e: any) => e.prev_hash)).size).toBe(before + 40);
  });

  it('gives proofs that verify, fail after a bit flip, and hide n and index from guests', async () => {
    const e = (await post(`/api/tree/${tree}/event`, { type: 'harvest', kg: 12.5 }, owner.token)).json.event;
    const mine = await get(`/api/tree/${tree}/proof/${e.event_id}`, owner.token);
    expect(mine.status).toBe(200);
    expect(mine.json).toMatchObject({ leaf_hash: e.leaf_hash, index: e.seq, anchor: null });
    expect(
      verifyInclusion({
        leafHex: e.leaf_hash,
        path: mine.json.path,
        rootHex: mine.json.root_hex,
        index: mine.json.index,
        size: mine.json.n,
      }),
    ).toBe(true);
    const flipped = mine.json.path.map((s: any, i: number) =>
      i === 0 ? { ...s, sibling: (s.sibling[0] === '0' ? '1' : '0') + s.sibling.slice(1) } : s,
    );
    expect(verifyInclusion({ leafHex: e.leaf_hash, path: flipped, rootHex: mine.json.root_hex })).toBe(false);
    const viaApi = await post('/api/animal/trust/verify-inclusion', {
      leaf_hex: e.leaf_hash,
      proof_path: mine.json.path,
      root_hex: mine.json.root_hex,
      index: mine.json.index,
      tree_size: mine.json.n,
    });
    expect(viaApi.json).toEqual({ ok: true, verified: true });
    const viaApiFlipped = await post('/api/animal/trust/verify-inclusion', {
      leaf_hex: e.leaf_hash,
      proof_path: flipped,
      root_hex: mine.json.root_hex,
      index: mine.json.index,
      tree_size: mine.json.n,
    });
    expect(viaApiFlipped.json).toEqual({ ok: true, verified: false });
    const guest = await get(`/api/tree/${tree}/proof/${e.event_id}`);
    expect(guest.status).toBe(200);
    expect(guest.json.n).toBeUndefined();
    expect(guest.json.index).toBeUndefined();
    expect(guest.json.root_hex).toBe(mine.json.root_hex);
  });

  it("answers a nonexistent event and someone else's pending event with the identical 404", async () => {
    const pending = (await post(`/api/tree/${tree}/event`, { type: 'note', text: 'hidden' }, other.token)).json.event;
    const third = await signup(app.url, 'third');
    const answers = await Promise.all([
      get(`/api/tree/${tree}/proof/${pending.event_id}`, third.token),
      get(`/api/tree/${tree}/proof/${pending.event_id}`),
      get(`/api/tree/${tree}/proof/00000000-0000-4000-8000-000000000000`, third.token),
      get(`/api/tree/${tree}/proof/nope`, third.token),
      get(`/api/tree/00000000-0000-4000-8000-000000000000/proof/${pending.event_id}`, third.token),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(404);
      expect(a.text).toBe(answers[0]!.text);
    }
    // A pending contribution is in no chain, so it has no proof, for its author and the owner alike.
    expect((await get(`/api/tree/${tree}/proof/${pending.event_id}`, other.token)).text).toBe(answers[0]!.text);
    expect((await get(`/api/tree/${tree}/proof/${pending.event_id}`, owner.token)).status).toBe(404);
  });

  it("merges the farm's care events, marked and without hashes, and only from the owner's own farm", async () => {
    const care = await post(`/api/farm/${farm}/event`, { type: 'care', product: 'copper spray' }, owner.token);
    expect(care.status).toBe(200);
    await post(`/api/farm/${farm}/event`, { type: 'inventory', text: 'not care' }, owner.token);
    const t = await get(`/api/tree/${tree}/timeline`);
    const inherited = t.json.events.filter((e: any) => e.inherited_from);
    expect(inherited).toHaveLength(1);
    expect(inherited[0]).toMatchObject({ inherited_from: { entity_type: 'farm', entity_id: farm }, body: { product: 'copper spray' } });
    expect(inherited[0].leaf_hash).toBeUndefined();
    expect(inherited[0].prev_hash).toBeUndefined();
    // Another account's tree on a farm of the same name is not on this owner's farm.
    const foreign = (await enrollTree(app.url, other.token, 12, { farm_id: farm })).tree_id;
    const ft = await get(`/api/tree/${foreign}/timeline`, other.token);
    expect(ft.json.events.some((e: any) => e.inherited_from)).toBe(false);
    // Farms are per account: the second account's farm of the same name is its own, so its events are its own.
    const byOther = await post(`/api/farm/${farm}/event`, { type: 'care', product: 'x' }, other.token);
    expect(byOther.json.event).toMatchObject({ approval: 'approved', author_role: 'owner' });
    expect((await get(`/api/farm/${farm}/timeline`, owner.token)).json.events.map((e: any) => e.body.product)).not.toContain('x');
  });

  it('proves consistency between two sizes', async () => {
    const size = (await get(`/api/tree/${tree}/timeline`, owner.token)).json.size;
    const r = await get(`/api/tree/${tree}/consistency?first=3&second=${size}`, owner.token);
    expect(r.status).toBe(200);
    expect(verifyConsistency({ m: 3, n: size, rootM: r.json.first_root, rootN: r.json.second_root, proof: r.json.proof })).toBe(true);
    expect(verifyConsistency({ m: 3, n: size, rootM: r.json.second_root, rootN: r.json.second_root, proof: r.json.proof })).toBe(false);
    expect((await get(`/api/tree/${tree}/consistency?first=3`, other.token)).status).toBe(404);
  });

  it('serves animal timelines under /api/animal and the /animal mirror alike', async () => {
    const animal = randomUUID();
    await app.container.db.query(`insert into individuals (id, owner_id, kind, farm_id, species) values ($1, $2, 'animal', $3, 'cattle')`, [
      animal,
      owner.id,
      farm,
    ]);
    const viaMirror = await post(`/animal/${animal}/event`, { type: 'weigh', kg: 410 }, owner.token);
    expect(viaMirror.status).toBe(200);
    expect(viaMirror.json.event).toMatchObject({ entity_type: 'animal', entity_id: animal, approval: 'approved' });
    const t = await get(`/api/animal/${animal}/timeline`, owner.token);
    expect(t.json.events.map((e: any) => e.body.type)).toEqual(expect.arrayContaining(['weigh', 'care']));
    expect((await get(`/animal/${animal}/timeline`, owner.token)).json).toEqual(t.json);
    expect((await post(`/animal/${tree}/event`, { type: 'x' }, owner.token)).status).toBe(403);
  });

  it('reports chain_ok false once a stored event is tampered with', async () => {
    const victim = (await post(`/api/tree/${tree}/event`, { type: 'note', text: 'original' }, owner.token)).json.event;
    await app.container.db.query(`update timeline_events set body = '{"type":"note","text":"forged"}'::jsonb where id = $1`, [
      victim.event_id,
    ]);
    const t = await get(`/api/tree/${tree}/timeline`, owner.token);
    expect(t.json.chain_ok).toBe(false);
    expect(t.json.broken_at).toBe(t.json.events.find((e: any) => e.event_id === victim.event_id).seq);
    expect((await get(`/api/tree/${tree}/timeline`)).json.chain_ok).toBe(false);
    expect(verifyChain([])).toEqual({ ok: true });
  });
});
