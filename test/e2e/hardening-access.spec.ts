/**
 * Leaks and access: private timelines, "not yours" = "missing", per-account farms, contributor
 * events outside the chain, and blob access for owners and grantees. One app, embedded: who may
 * read what is decided by the access policy and its repository (whose spec runs on PGlite and
 * PostgreSQL), above the adapters; blobs on S3 against files are blob-references.spec.ts's and the
 * blob store conformance suite's, and strangers probing victims' ids in both modes the attack sweep's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { uniqueName } from '../support/postgres.js';
import { syntheticClip, videoForm } from '../support/video.js';
import { enrollTree } from './timeline.helpers.js';

type User = { token: string; id: string; username: string };
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('hardening: leaks and access (embedded)', () => {
  let app: TestApp;
  let owner: User;
  let grantee: User;
  let stranger: User;
  let tree: { tree_id: string; code: string; record_cid: string; files: Buffer[] };
  const get = (p: string, token?: string) => api(app.url, 'GET', p, token ? { token } : {});
  const post = (p: string, json: unknown, token?: string) => api(app.url, 'POST', p, { json, ...(token ? { token } : {}) });

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    owner = await signup(app.url, 'acc_own');
    grantee = await signup(app.url, 'acc_gra');
    stranger = await signup(app.url, 'acc_str');
    tree = await enrollTree(app.url, owner.token, 901, { farm_id: 'orchard-1' });
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("a private tree's timeline answers guests, strangers and revoked grantees exactly like a missing one", async () => {
    const missing = await get(`/api/tree/${MISSING}/timeline`);
    expect(missing.status).toBe(404);
    const guest = await get(`/api/tree/${tree.tree_id}/timeline`);
    expect(guest.status).toBe(404);
    expect(guest.text).toBe(missing.text);
    expect(guest.text).not.toContain(tree.code);
    expect(guest.text).not.toContain(tree.record_cid);
    expect((await get(`/api/resolve/${tree.code}`)).status).toBe(404);
    expect((await get(`/api/tree/${tree.tree_id}/timeline`, stranger.token)).text).toBe(
      (await get(`/api/tree/${MISSING}/timeline`, stranger.token)).text,
    );
    // A current grantee reads it; once revoked, not any more.
    expect(
      (await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: grantee.username, access: 'read' } })).status,
    ).toBe(200);
    expect((await get(`/api/tree/${tree.tree_id}/timeline`, grantee.token)).status).toBe(200);
    expect((await api(app.url, 'POST', '/api/grant/revoke', { token: owner.token, form: { grantee: grantee.username } })).status).toBe(200);
    const revoked = await get(`/api/tree/${tree.tree_id}/timeline`, grantee.token);
    expect(revoked.status).toBe(404);
    expect(revoked.text).toBe((await get(`/api/tree/${MISSING}/timeline`, grantee.token)).text);
    // The owner always reads it; a proof of its enrol event is as hidden as the timeline.
    const mine = await get(`/api/tree/${tree.tree_id}/timeline`, owner.token);
    expect(mine.status).toBe(200);
    const proof = await get(`/api/tree/${tree.tree_id}/proof/${mine.json.events[0].event_id}`);
    expect(proof.status).toBe(404);
  });

  it('consistency, anchor, approve, reject and POST event answer "not yours" exactly like "missing"', async () => {
    const e = (await post(`/api/tree/${tree.tree_id}/event`, { type: 'note' }, owner.token)).json.event;
    const pairs: Array<[string, string, 'GET' | 'POST']> = [
      [`/api/tree/${tree.tree_id}/consistency?first=1`, `/api/tree/${MISSING}/consistency?first=1`, 'GET'],
      [`/api/tree/${tree.tree_id}/event/${e.event_id}/anchor`, `/api/tree/${MISSING}/event/${e.event_id}/anchor`, 'POST'],
      [`/api/tree/${tree.tree_id}/event/${e.event_id}/approve`, `/api/tree/${MISSING}/event/${e.event_id}/approve`, 'POST'],
      [`/api/tree/${tree.tree_id}/event/${e.event_id}/reject`, `/api/tree/${MISSING}/event/${e.event_id}/reject`, 'POST'],
    ];
    for (const [theirs, none, method] of pairs) {
      const a = await api(app.url, method, theirs, { token: stranger.token });
      const b = await api(app.url, method, none, { token: stranger.token });
      expect(a.status, theirs).toBe(404);
      expect(a.text, theirs).toBe(b.text);
    }
    const postTheirs = await post(`/api/tree/${tree.tree_id}/event`, { type: 'x' }, stranger.token);
    const postNone = await post(`/api/tree/${MISSING}/event`, { type: 'x' }, stranger.token);
    expect(postTheirs.status).toBe(403);
    expect(postTheirs.text).toBe(postNone.text);
    const size = (await get(`/api/tree/${tree.tree_id}/timeline`, owner.token)).json.size;
    expect(size).toBe(2);
  });

  it("farms are per account: the same farm_id in two accounts are two farms, and nobody takes over another's", async () => {
    const polygon = (x: number) => ({
      type: 'Polygon',
      coordinates: [
        [
          [x, 10],
          [x + 0.01, 10],
          [x + 0.01, 10.01],
          [x, 10],
        ],
      ],
    });
    // The stranger sets a boundary on "orchard-1" first, before the owner ever did.
    expect(
      (await api(app.url, 'PUT', '/api/farm/orchard-1/boundary', { token: stranger.token, json: { boundary: polygon(105) } })).status,
    ).toBe(200);
    expect(
      (await api(app.url, 'PUT', '/api/farm/orchard-1/boundary', { token: owner.token, json: { boundary: polygon(106) } })).status,
    ).toBe(200);
    expect((await get('/api/farm/orchard-1/boundary', owner.token)).json.boundary).toEqual(polygon(106));
    expect((await get('/api/farm/orchard-1/boundary', stranger.token)).json.boundary).toEqual(polygon(105));
    // The owner's farm events are the owner's own (not "contributor/pending").
    const care = await post('/api/farm/orchard-1/event', { type: 'care', product: 'lime' }, owner.token);
    expect(care.json.event).toMatchObject({ author_role: 'owner', approval: 'approved' });
    const theirs = await post('/api/farm/orchard-1/event', { type: 'care', product: 'stranger-spray' }, stranger.token);
    expect(theirs.json.event).toMatchObject({ author_role: 'owner', approval: 'approved' });
    const ownerView = await get('/api/farm/orchard-1/timeline', owner.token);
    expect(ownerView.json.entity_id).toBe('orchard-1');
    expect(ownerView.json.events.map((x: any) => x.body.product)).toEqual(expect.arrayContaining(['lime']));
    expect(ownerView.json.events.map((x: any) => x.body.product)).not.toContain('stranger-spray');
    // Farm timelines follow the visibility rules: nobody but the owner reads them.
    const guest = await get('/api/farm/orchard-1/timeline');
    expect(guest.status).toBe(404);
    expect(guest.text).toBe((await get(`/api/farm/${uniqueName('none-')}/timeline`)).text);
  });

  it('contributor events stay out of the chain until approved, are capped, can be rejected, and anchors cover approved events only', async () => {
    expect(
      (await api(app.url, 'POST', '/api/grant', { token: owner.token, form: { grantee: grantee.username, access: 'read' } })).status,
    ).toBe(200);
    const before = (await get(`/api/tree/${tree.tree_id}/timeline`, owner.token)).json;
    const sub = await post(`/api/tree/${tree.tree_id}/event`, { type: 'note', text: 'from-grantee' }, grantee.token);
    expect(sub.status).toBe(200);
    expect(sub.json.event).toMatchObject({ approval: 'pending', visibility: 'private', author_role: 'contributor' });
    expect(sub.json.event.leaf_hash).toBeUndefined();
    const after = (await get(`/api/tree/${tree.tree_id}/timeline`, owner.token)).json;
    expect(after.size).toBe(before.size);
    expect(after.events.find((x: any) => x.event_id === sub.json.event.event_id)).toMatchObject({ approval: 'pending' });
    expect((await get(`/api/tree/${tree.tree_id}/proof/${sub.json.event.event_id}`, owner.token)).status).toBe(404);
    // Anchoring now covers the chain without the pending event.
    const first = after.events.find((x: any) => x.seq === 0);
    const anchor = await post(`/api/tree/${tree.tree_id}/event/${first.event_id}/anchor`, {}, owner.token);
    expect(anchor.status).toBe(200);
    expect(anchor.json.anchor.size).toBe(before.size);
    // Size cap (16 KB) and depth cap (32).
    const big = await post(`/api/tree/${tree.tree_id}/event`, { text: 'x'.repeat(17_000) }, grantee.token);
    expect(big.status).toBe(422);
    expect(big.json).toMatchObject({ code: 'event_too_large', detail: 'body' });
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect((await post(`/api/tree/${tree.tree_id}/event`, { deep }, owner.token)).json.code).toBe('json_too_deep');
    // Reject: it never enters the chain and disappears.
    const rej = await post(`/api/tree/${tree.tree_id}/event/${sub.json.event.event_id}/reject`, {}, owner.token);
    expect(rej.json).toEqual({ ok: true, event_id: sub.json.event.event_id, rejected: true });
    const gone = (await get(`/api/tree/${tree.tree_id}/timeline`, owner.token)).json;
    expect(gone.events.some((x: any) => x.event_id === sub.json.event.event_id)).toBe(false);
    expect(gone.size).toBe(before.size);
    // Approve: appended by the owner's action, naming its author inside the hashed body.
    const sub2 = await post(`/api/tree/${tree.tree_id}/event`, { type: 'note', text: 'approve-me' }, grantee.token);
    const ok = await post(`/api/tree/${tree.tree_id}/event/${sub2.json.event.event_id}/approve`, {}, owner.token);
    expect(ok.json.event).toMatchObject({
      seq: before.size,
      approval: 'approved',
      body: { text: 'approve-me', _contribution: { author_id: grantee.id, approved_by: owner.id } },
    });
    const chained = (await get(`/api/tree/${tree.tree_id}/timeline`, owner.token)).json;
    expect(chained.size).toBe(before.size + 1);
    expect(chained.chain_ok).toBe(true);
    // Per-author, per-entity daily count: 20 pending, then 429 with Retry-After.
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await post(`/api/tree/${tree.tree_id}/event`, { i }, grantee.token)).status);
    expect(statuses.filter((s) => s === 200).length).toBe(18);
    const over = await post(`/api/tree/${tree.tree_id}/event`, { i: 99 }, grantee.token);
    expect(over.status).toBe(429);
    expect(over.json.code).toBe('event_quota_exceeded');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(80_000);
  });

  it('owners fetch their own video CIDs and read grantees the photo CIDs shown to them; others get 404', async () => {
    const clip = await syntheticClip(2);
    const up = await fetch(`${app.url}/api/tree/${tree.tree_id}/fruit_video`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: videoForm(clip),
    });
    expect(up.status).toBe(200);
    const { cid } = (await up.json()) as { cid: string };
    const mine = await fetch(`${app.url}/api/blobs/${cid}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(mine.status).toBe(200);
    expect(Buffer.from(await mine.arrayBuffer()).equals(clip)).toBe(true);
    expect((await get(`/api/blobs/${cid}`, stranger.token)).status).toBe(404);
    // The grantee (granted in the previous test) fetches the photo CIDs of the shared tree.
    const views = await get(`/api/tree_views?tree_id=${tree.tree_id}`, grantee.token);
    expect(views.status).toBe(200);
    const photoCid = JSON.stringify(views.json).match(/bafk[a-z2-7]+/)![0];
    expect((await get(`/api/blobs/${photoCid}`, grantee.token)).status).toBe(200);
    expect((await get(`/api/blobs/${photoCid}`, stranger.token)).status).toBe(404);
    await api(app.url, 'POST', '/api/grant/revoke', { token: owner.token, form: { grantee: grantee.username } });
    expect((await get(`/api/blobs/${photoCid}`, grantee.token)).status).toBe(404);
  });
});
