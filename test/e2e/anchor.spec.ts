import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runVerify } from '../../shared/src/evidence/verify-cli/verify-main.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCheckpoint, type SignedCheckpoint } from '../../shared/src/evidence/checkpoint.js';
import { entityCommitment } from '../../shared/src/evidence/entity-commitment.js';
import { commitmentFor } from '../../shared/src/repos/evidence/entity-secret.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { startFakeBlockfrost, type FakeBlockfrost } from './anchor.fake-blockfrost.js';
import { startFakeKubo, type FakeKubo } from './anchor.fake-kubo.js';
import { enrollTree } from './timeline.helpers.js';

async function setup(app: TestApp) {
  const owner = await signup(app.url, 'owner');
  const tree = (await enrollTree(app.url, owner.token, 21)).tree_id as string;
  const ev = await api(app.url, 'POST', `/api/tree/${tree}/event`, { token: owner.token, json: { type: 'care', text: 'pruned' } });
  return { owner, tree, event: ev.json.event.event_id as string };
}

describe('anchoring, local backend (embedded default)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode: 'embedded' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('anchors the whole chain root with a signed checkpoint, and later proofs carry it', async () => {
    const { owner, tree, event } = await setup(app);
    const before = await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`, { token: owner.token });
    expect(before.json.anchor).toBeNull();
    const r = await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.json.anchor).toMatchObject({ backend: 'local', status: 'confirmed', size: 2, root_hex: before.json.root_hex });
    const after = await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`, { token: owner.token });
    expect(after.json.anchor).toMatchObject({ status: 'confirmed', root_hex: after.json.root_hex });
    // Guests read proofs of published trees only (a private one is a 404, like a missing one).
    expect((await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`)).status).toBe(404);
    await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: owner.token, form: { level: 'public' } });
    const guest = await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`);
    expect(guest.json.anchor).toMatchObject({ status: 'confirmed' });
    expect(guest.json.anchor.size).toBeUndefined();
    // The checkpoint is signed by the key /api/anchor/status publishes.
    const status = await api(app.url, 'GET', '/api/anchor/status', { token: owner.token });
    expect(status.json).toMatchObject({ ok: true, backend: 'local', healthy: true, detail: { log_ok: true } });
    const cp = (
      await app.container.db.query<{ checkpoint: SignedCheckpoint }>('select checkpoint from checkpoint_log where seq = $1', [
        r.json.anchor.checkpoint_seq,
      ])
    ).rows[0]!.checkpoint;
    // The public log names a commitment that opens to this tree, never the tree id.
    const { salt } = await commitmentFor(app.container.db, 'tree', tree, 2, before.json.root_hex);
    expect(cp).toMatchObject({ entity: entityCommitment(`tree/${tree}`, salt), size: 2, root_hex: before.json.root_hex });
    expect(verifyCheckpoint(cp, status.json.detail.public_key).ok).toBe(true);
    // Asking again for the same root reuses the anchor; a new event makes the current root unanchored.
    const again = await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`, { token: owner.token });
    expect(again.json.anchor.anchor_id).toBe(r.json.anchor.anchor_id);
    await api(app.url, 'POST', `/api/tree/${tree}/event`, { token: owner.token, json: { type: 'note' } });
    expect((await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`, { token: owner.token })).json.anchor).toBeNull();
    expect((await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}?size=2`, { token: owner.token })).json.anchor).toMatchObject({
      status: 'confirmed',
    });
  });

  it('lets only the owner anchor, and requires a token for the status', async () => {
    const { tree, event } = await setup(app);
    const stranger = await signup(app.url, 'stranger');
    // Not yours is the same 404 as missing.
    expect((await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`, { token: stranger.token })).status).toBe(404);
    expect((await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`)).status).toBe(401);
    expect((await api(app.url, 'GET', '/api/anchor/status')).status).toBe(401);
  });

  it('answers 404 for an event that is not in the chain', async () => {
    const { owner, tree } = await setup(app);
    expect(
      (await api(app.url, 'POST', `/api/tree/${tree}/event/00000000-0000-4000-8000-000000000000/anchor`, { token: owner.token })).status,
    ).toBe(404);
  });
});

describe('anchoring, cardano backend against a Blockfrost-compatible server (and Kubo pinning)', () => {
  let app: TestApp;
  let chain: FakeBlockfrost;
  let kubo: FakeKubo;
  beforeAll(async () => {
    chain = await startFakeBlockfrost({ funds: 3 });
    kubo = await startFakeKubo();
    app = await startTestApp({
      engine: 'deterministic',
      mode: 'embedded',
      env: {
        KUBO_API_URL: kubo.url,
        ANCHOR_BACKEND: 'cardano',
        CARDANO_API_URL: chain.url,
        CARDANO_SIGNING_KEY: randomBytes(32).toString('hex'),
        CARDANO_CONFIRMATIONS: '3',
        CARDANO_POLL_S: '0',
        CARDANO_NETWORK: 'preprod',
        CARDANO_TX_TIMEOUT_S: '60',
      },
    });
  });
  afterAll(async () => {
    await app?.stop();
    await chain?.close();
    await kubo?.close();
  });

  it("pins the record's photos and the record itself to Kubo under the same CIDs once the tree is published", async () => {
    const owner = await signup(app.url, 'pinner');
    const enrolled = await enrollTree(app.url, owner.token, 25);
    const p = await api(app.url, 'GET', `/api/provenance/${enrolled.tree_id}`, { token: owner.token });
    // A private tree's photos never go to the public IPFS network.
    expect(kubo.pinned).not.toContain(p.json.record_cid);
    expect((await api(app.url, 'POST', `/api/tree/${enrolled.tree_id}/publish`, { token: owner.token })).status).toBe(200);
    expect(kubo.pinned).toEqual(expect.arrayContaining([...p.json.images, p.json.record_cid]));
  });

  it('submits a signed transaction with label 1455 and the root, then confirms after N blocks', async () => {
    const { owner, tree, event } = await setup(app);
    const proof = await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`, { token: owner.token });
    const r = await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.json.anchor).toMatchObject({ backend: 'cardano', status: 'submitted', root_hex: proof.json.root_hex });
    expect(r.json.anchor.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.json.anchor.explorer_url).toBe(`https://preprod.cardanoscan.io/transaction/${r.json.anchor.tx_hash}`);
    const sent = chain.submitted.at(-1)!;
    const { commitment } = await commitmentFor(app.container.db, 'tree', tree, 2, proof.json.root_hex);
    expect(sent).toMatchObject({
      label: 1455,
      root_hex: proof.json.root_hex,
      size: 2,
      entity: commitment,
      tx_hash: r.json.anchor.tx_hash,
      signatures_ok: true,
      metadata_bound: true,
      content_type: 'application/cbor',
    });
    const read = async () => (await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`, { token: owner.token })).json.anchor;
    expect(await read()).toMatchObject({ status: 'submitted', confirmations: 0 });
    chain.mine();
    expect(await read()).toMatchObject({ status: 'submitted', confirmations: 1 });
    chain.advance(2);
    expect(await read()).toMatchObject({ status: 'confirmed', confirmations: 3 });
    const status = await api(app.url, 'GET', '/api/anchor/status', { token: owner.token });
    expect(status.json).toMatchObject({ backend: 'cardano', healthy: true, anchors: { confirmed: 1 } });
    expect(status.json.detail.address).toMatch(/^addr_test1/);
    // The export carries the signed transaction, and the offline verifier accepts it.
    const ex = await api(app.url, 'GET', `/api/provenance/${tree}/export`, { token: owner.token });
    expect(ex.json.anchor).toMatchObject({ backend: 'cardano', tx_hash: r.json.anchor.tx_hash });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-cardano-'));
    await writeFile(path.join(dir, 'tree.json'), ex.text);
    // Offline, the verifier cannot know the transaction was ever submitted, and says so.
    const offline: string[] = [];
    expect(await runVerify([path.join(dir, 'tree.json')], (l) => offline.push(l))).toBe(1);
    expect(offline.filter((l) => l.startsWith('FAIL'))).toEqual([
      expect.stringMatching(/^FAIL anchor\.trust checked offline: .*NOT checked: that it was ever submitted/),
    ]);
    const lines: string[] = [];
    const code = await runVerify([path.join(dir, 'tree.json'), '--online', chain.url, '--confirmations', '3', '--expect', tree], (l) =>
      lines.push(l),
    );
    await rm(dir, { recursive: true, force: true });
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(code).toBe(0);
    expect(lines.join('\n')).toContain('PASS anchor.root cardano anchor holds root');
    expect(lines.join('\n')).toMatch(/PASS anchor\.trust Cardano transaction [0-9a-f]{64} is on chain in block \d+ with 3 confirmations/);
  });

  it('sets a TTL on every transaction, and marks failed only one that can no longer land', async () => {
    chain.mine();
    const { owner, tree, event } = await setup(app);
    const slotAtSubmit = chain.slot();
    const r = await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`, { token: owner.token });
    expect(r.json.anchor).toMatchObject({ status: 'submitted' });
    const sent = chain.submitted.find((t) => t.tx_hash === r.json.anchor.tx_hash)!;
    expect(sent.ttl_slot).toBe(slotAtSubmit + 60);
    const read = async () => (await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}?size=2`, { token: owner.token })).json.anchor;
    chain.advance(3); // 60 slots later: the last slot it may still land in
    expect(await read()).toMatchObject({ status: 'submitted' });
    chain.advance(1);
    expect(await read()).toBeNull(); // failed anchors are not shown as a proof's anchor
    const row = (
      await app.container.db.query<{ status: string; error: string }>('select status, error from anchors where tx_hash = $1', [
        sent.tx_hash,
      ])
    ).rows[0]!;
    expect(row).toMatchObject({ status: 'failed', error: expect.stringMatching(/TTL slot \d+: it can never land/) });
    chain.mine();
    expect((await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}?size=2`, { token: owner.token })).json.anchor).toBeNull();
  });

  it('gives concurrent anchors disjoint inputs, so the chain refuses neither', async () => {
    chain.mine();
    const a = await setup(app);
    const b = await setup(app);
    const refusedBefore = chain.refused.length;
    const [ra, rb] = await Promise.all(
      [a, b].map((x) => api(app.url, 'POST', `/api/tree/${x.tree}/event/${x.event}/anchor`, { token: x.owner.token })),
    );
    expect(chain.refused.slice(refusedBefore)).toEqual([]);
    expect([ra!.json.anchor.status, rb!.json.anchor.status]).toEqual(['submitted', 'submitted']);
    const txa = chain.submitted.find((t) => t.tx_hash === ra!.json.anchor.tx_hash)!;
    const txb = chain.submitted.find((t) => t.tx_hash === rb!.json.anchor.tx_hash)!;
    expect(txa.inputs.filter((i) => txb.inputs.includes(i))).toEqual([]);
    chain.mine();
    chain.advance(2);
    const read = (x: typeof a) => api(app.url, 'GET', `/api/tree/${x.tree}/proof/${x.event}?size=2`, { token: x.owner.token });
    expect((await read(a)).json.anchor).toMatchObject({ status: 'confirmed' });
    expect((await read(b)).json.anchor).toMatchObject({ status: 'confirmed' });
  });

  it('marks a refused submission failed, and a new request retries it', async () => {
    const { owner, tree, event } = await setup(app);
    chain.refuseWith = 400;
    const r = await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`, { token: owner.token });
    chain.refuseWith = null;
    expect(r.json.anchor).toMatchObject({ status: 'failed' });
    expect(r.json.anchor.error).toContain('400');
    expect((await api(app.url, 'GET', `/api/tree/${tree}/proof/${event}`, { token: owner.token })).json.anchor).toBeNull();
    const retry = await api(app.url, 'POST', `/api/tree/${tree}/event/${event}/anchor`, { token: owner.token });
    expect(retry.json.anchor).toMatchObject({ status: 'submitted' });
  });
});
