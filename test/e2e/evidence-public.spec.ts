/**
 * Evidence a stranger can fetch and re-check with no account (issue: "What a third party needs"):
 * the service key, the checkpoint log, a published tree's bundle and photos, and a consistency
 * proof between two anchored roots, each verified by the offline CLI alone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cidForBytes } from '../../shared/src/evidence/cid.js';
import { entityMatches } from '../../shared/src/evidence/entity-commitment.js';
import { runVerify } from '../../shared/src/evidence/verify-cli/verify-main.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { startFakeKubo, type FakeKubo } from './anchor.fake-kubo.js';
import { enrollTree } from './timeline.helpers.js';

describe('public evidence, fetched and verified without a token', () => {
  let app: TestApp;
  let kubo: FakeKubo;
  let dir: string;
  beforeAll(async () => {
    kubo = await startFakeKubo();
    app = await startTestApp({ engine: 'deterministic', mode: 'embedded', env: { KUBO_API_URL: kubo.url } });
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-public-evidence-'));
  });
  afterAll(async () => {
    await app?.stop();
    await kubo?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const verify = async (args: string[]) => {
    const lines: string[] = [];
    const code = await runVerify(args, (l) => lines.push(l));
    return { code, lines, fails: lines.filter((l) => l.startsWith('FAIL')) };
  };
  const save = async (name: string, value: unknown) => {
    const file = path.join(dir, name);
    await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };

  /** A tree anchored at sizes 2 and 3, then published; returns ids and its code. */
  async function anchoredTree(seed: number, publish: boolean) {
    const owner = await signup(app.url, 'publisher');
    const enrolled = await enrollTree(app.url, owner.token, seed);
    const tree = enrolled.tree_id as string;
    const anchorAt = async () => {
      const ev = await api(app.url, 'POST', `/api/tree/${tree}/event`, { token: owner.token, json: { type: 'care', note: 'tỉa cành' } });
      const a = await api(app.url, 'POST', `/api/tree/${tree}/event/${ev.json.event.event_id}/anchor`, { token: owner.token });
      expect(a.json.anchor).toMatchObject({ status: 'confirmed' });
      return a.json.anchor;
    };
    const first = await anchorAt();
    const second = await anchorAt();
    expect(kubo.pinned).not.toContain(enrolled.record_cid ?? '-');
    if (publish) expect((await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: owner.token })).status).toBe(200);
    const prov = await api(app.url, 'GET', `/api/provenance/${tree}`, { token: owner.token });
    return {
      owner,
      tree,
      code: prov.json.code as string,
      recordCid: prov.json.record_cid as string,
      images: prov.json.images as string[],
      first,
      second,
    };
  }

  it('the public log names no private entity and no owner: each checkpoint carries a fresh commitment; the owner’s bundle opens it and verifies', async () => {
    const t = await anchoredTree(62, false);
    const log = (await api(app.url, 'GET', '/api/anchor/checkpoints?limit=1000')).json;
    const text = JSON.stringify(log.checkpoints);
    expect(text).not.toContain(t.tree);
    expect(text).not.toContain(t.owner.id);
    expect(text).not.toMatch(/"entity":"(tree|fruit|animal|farm)\//);
    const mine = log.checkpoints.filter((cp: { seq: number }) => [t.first.checkpoint_seq, t.second.checkpoint_seq].includes(cp.seq));
    expect(mine).toHaveLength(2);
    for (const cp of mine) expect(cp.entity).toMatch(/^c1:[A-Za-z0-9_-]{43}$/);
    // Two anchorings of one chain cannot be linked by their entity field.
    expect(mine[0].entity).not.toBe(mine[1].entity);
    // A guessed id without the salt does not match.
    expect(mine.some((cp: { entity: string }) => entityMatches(cp.entity, `tree/${t.tree}`))).toBe(false);

    const key = (await api(app.url, 'GET', '/.well-known/markless.json')).json.anchoring.public_key as string;
    const bundle = await api(app.url, 'GET', `/api/provenance/${t.tree}/export`, { token: t.owner.token });
    expect(bundle.status).toBe(200);
    expect(bundle.json.anchor.entity_salt).toMatch(/^[0-9a-f]{64}$/);
    const ok = await verify([await save('private-bundle.json', bundle.text), '--trust-key', key]);
    expect(ok.fails).toEqual([]);
    expect(ok.lines.find((l) => l.startsWith('PASS anchor.root'))).toBeDefined();
    // The commitment binds the entity: another salt (or none) makes anchor.root fail.
    const forged = { ...bundle.json, anchor: { ...bundle.json.anchor, entity_salt: '0'.repeat(64) } };
    const bad = await verify([await save('forged-salt.json', forged), '--trust-key', key]);
    expect(bad.fails.map((l) => l.split(' ')[1])).toEqual(['anchor.root']);
    // A stranger cannot fetch the bundle of a private tree, nor a consistency proof for it.
    expect((await api(app.url, 'GET', `/api/anchor/consistency/tree/${t.tree}?first=${t.first.size}&second=${t.second.size}`)).status).toBe(
      404,
    );
  });

  it('publishes the key, the log, the bundle, the photos and a consistency proof, and the CLI accepts them all', async () => {
    const t = await anchoredTree(61, true);
    // Publishing pins the record and its photos to IPFS under the very CIDs the record names.
    expect(kubo.pinned).toEqual(expect.arrayContaining([...t.images, t.recordCid]));

    const wellKnown = await api(app.url, 'GET', '/.well-known/markless.json');
    const key = wellKnown.json.anchoring.public_key as string;
    expect(wellKnown.json.anchoring).toMatchObject({
      backend: 'local',
      public_key: expect.stringMatching(/^did:key:z6Mk/),
      key_fingerprint: expect.stringMatching(/^SHA256:/),
    });

    const resolved = await api(app.url, 'GET', `/api/resolve/${t.code}`);
    expect(resolved.json.anchor.text.en).toBe(
      `Signed by this server's own key (fingerprint ${wellKnown.json.anchoring.key_fingerprint}), not a public blockchain: trust it only as far as you trust that key.`,
    );
    const page = await fetch(`${app.url}/t/${t.code}`);
    expect(await page.text()).toContain(`fingerprint ${wellKnown.json.anchoring.key_fingerprint}`);

    const bundle = await api(app.url, 'GET', `/api/resolve/${t.code}/export`);
    expect(bundle.status).toBe(200);
    const exported = await verify([await save('bundle.json', bundle.text), '--trust-key', key, '--expect', t.code]);
    expect(exported.fails).toEqual([]);
    expect(exported.code).toBe(0);
    expect(exported.lines.find((l) => l.startsWith('PASS entity'))).toContain(`tree ${t.tree} (code ${t.code})`);

    for (const cid of t.images) {
      const photo = await fetch(`${app.url}/api/blobs/${cid}`);
      expect(photo.status).toBe(200);
      expect(await cidForBytes(new Uint8Array(await photo.arrayBuffer()))).toBe(cid);
    }

    const log = await api(app.url, 'GET', '/api/anchor/checkpoints?limit=1000');
    expect(log.json.checkpoints.length).toBeGreaterThanOrEqual(2);
    const logFile = await save('log.json', log.json);
    const anchorFile = await save('anchor.json', bundle.json.anchor);
    const logCheck = await verify(['log', logFile, '--trust-key', key, '--include', anchorFile]);
    expect(logCheck.fails).toEqual([]);
    expect(logCheck.code).toBe(0);

    const cons = await api(app.url, 'GET', `/api/anchor/consistency/tree/${t.tree}?first=${t.first.size}&second=${t.second.size}`);
    expect(cons.status).toBe(200);
    const consCheck = await verify(['consistency', await save('consistency.json', cons.json), '--log', logFile, '--trust-key', key]);
    expect(consCheck.lines).toEqual(
      expect.arrayContaining([expect.stringMatching(/^PASS consistency\.proof /), expect.stringMatching(/^PASS consistency\.anchored /)]),
    );
    expect(consCheck.code).toBe(0);
  });

  it('rejects a log with a checkpoint dropped, and a proof between roots the log never signed', async () => {
    const t = await anchoredTree(62, true);
    const key = (await api(app.url, 'GET', '/.well-known/markless.json')).json.anchoring.public_key as string;
    const log = (await api(app.url, 'GET', '/api/anchor/checkpoints?limit=1000')).json;
    const gap = { ...log, checkpoints: log.checkpoints.filter((_: unknown, i: number) => i !== 1) };
    const gapped = await verify(['log', await save('gap.json', gap), '--trust-key', key]);
    expect(gapped.code).toBe(1);
    expect(gapped.fails).toEqual([expect.stringMatching(/^FAIL log\.continuity seq \d+ follows seq \d+: a checkpoint is missing/)]);
    const unpinned = await verify(['log', await save('log2.json', log)]);
    expect(unpinned.fails).toEqual([expect.stringMatching(/^FAIL log\.signatures no --trust-key given/)]);
    // A size that was never anchored has no public consistency proof at all.
    expect((await api(app.url, 'GET', `/api/anchor/consistency/tree/${t.tree}?first=1&second=${t.second.size}`)).status).toBe(404);
    const cons = (await api(app.url, 'GET', `/api/anchor/consistency/tree/${t.tree}?first=${t.first.size}&second=${t.second.size}`)).json;
    const forged = { ...cons, second_root: 'ab'.repeat(32) };
    const bad = await verify(['consistency', await save('forged.json', forged), '--log', await save('log3.json', log), '--trust-key', key]);
    expect(bad.code).toBe(1);
    expect(bad.fails.map((l) => l.split(' ')[1])).toEqual(['consistency.proof', 'consistency.anchored']);
  });

  it("keeps a private tree's bundle, proof and photos behind the same 404 as a missing one", async () => {
    const t = await anchoredTree(63, false);
    expect((await api(app.url, 'GET', `/api/resolve/${t.code}/export`)).status).toBe(404);
    expect((await api(app.url, 'GET', '/api/resolve/MKL-s000000-NOPE1234/export')).json).toEqual(
      (await api(app.url, 'GET', `/api/resolve/${t.code}/export`)).json,
    );
    expect((await api(app.url, 'GET', `/api/anchor/consistency/tree/${t.tree}?first=${t.first.size}&second=${t.second.size}`)).status).toBe(
      404,
    );
    expect((await fetch(`${app.url}/api/blobs/${t.images[0]}`)).status).toBe(404);
    expect(kubo.pinned).not.toContain(t.recordCid);
  });
});
