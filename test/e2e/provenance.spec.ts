import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cidForBytes } from '../../shared/src/evidence/cid.js';
import { decodeRecord } from '../../shared/src/evidence/record.js';
import { runVerify } from '../../shared/src/evidence/verify-cli/verify-main.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { otherView, photoForm } from '../support/images.js';
import { enrollTree } from './timeline.helpers.js';

const run = promisify(execFile);

describe('provenance, export and the offline verifier', () => {
  let app: TestApp;
  let dir: string;
  let owner: { token: string; id: string };
  let enrolled: any;
  beforeAll(async () => {
    app = await startTestApp({ mode: 'embedded' });
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-prov-'));
    owner = await signup(app.url, 'owner');
    enrolled = await enrollTree(app.url, owner.token, 31, { lat: '10.7626', lon: '106.6601' });
  });
  afterAll(async () => {
    await app?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("writes the code and a canonical record naming only the first enrolment's photos", async () => {
    const tree = enrolled.tree_id;
    const expected = await Promise.all(enrolled.files.map((f: Buffer) => cidForBytes(f)));
    const p = await api(app.url, 'GET', `/api/provenance/${tree}`, { token: owner.token });
    expect(p.status).toBe(200);
    expect(p.json).toMatchObject({
      code: enrolled.code,
      record_cid: enrolled.record_cid,
      images: expected,
      record_image_count: 2,
      image_count: 2,
      anchor_status: 'none',
      anchor: null,
    });
    expect(p.json.code).toMatch(/^MKL-w3gv5p7-[2-9A-HJ-NP-Z]{8}$/);
    const row = (
      await app.container.db.query<{ record_cbor: Buffer }>('select record_cbor from tree_records where individual_id = $1', [tree])
    ).rows[0]!;
    expect(decodeRecord(new Uint8Array(row.record_cbor))).toMatchObject({
      code: p.json.code,
      species: 'durian',
      geohash: 'w3gv5p7',
      images: expected,
      schema: 1,
    });
    // A later photo (another view of the same bark: verify_add confirms the match first) is kept
    // (true count) but the anchored record does not change.
    const later = await fetch(`${app.url}/api/verify_add`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: photoForm([await otherView(enrolled.files[0], 32)], { tree_id: tree }),
    });
    expect(later.status).toBe(200);
    const p2 = await api(app.url, 'GET', `/api/provenance/${tree}`, { token: owner.token });
    expect(p2.json).toMatchObject({ image_count: 3, record_image_count: 2, record_cid: p.json.record_cid, images: expected });
  });

  it('answers 404 to another account and 401 without a token', async () => {
    const stranger = await signup(app.url, 'stranger');
    const theirs = await api(app.url, 'GET', `/api/provenance/${enrolled.tree_id}`, { token: stranger.token });
    const missing = await api(app.url, 'GET', '/api/provenance/00000000-0000-4000-8000-000000000000', { token: stranger.token });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(missing.text);
    expect((await api(app.url, 'GET', `/api/provenance/${enrolled.tree_id}/export`, { token: stranger.token })).status).toBe(404);
    expect((await api(app.url, 'GET', `/api/provenance/${enrolled.tree_id}`)).status).toBe(401);
  });

  it('serves blobs read-only by CID to their owner only', async () => {
    const cid = await cidForBytes(enrolled.files[0]);
    const mine = await fetch(`${app.url}/api/blobs/${cid}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(mine.status).toBe(200);
    expect(await cidForBytes(new Uint8Array(await mine.arrayBuffer()))).toBe(cid);
    const stranger = await signup(app.url, 'stranger');
    expect((await api(app.url, 'GET', `/api/blobs/${cid}`, { token: stranger.token })).status).toBe(404);
    expect((await api(app.url, 'GET', `/api/blobs/${cid}`)).status).toBe(404);
    expect((await api(app.url, 'PUT', `/api/blobs/${cid}`, { token: owner.token, body: 'x' })).status).toBeGreaterThanOrEqual(404);
  });

  it("serves a published tree's record photos to anyone, but never its later photos", async () => {
    const tree = enrolled.tree_id;
    const recordCid = await cidForBytes(enrolled.files[1]);
    const later = (
      await app.container.db.query<{ cid: string }>('select cid from images where individual_id = $1 and not in_record', [tree])
    ).rows[0]!.cid;
    const published = await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: owner.token, form: { level: 'public' } });
    expect(published.status).toBe(200);
    try {
      expect((await api(app.url, 'GET', `/api/blobs/${recordCid}`)).status).toBe(200);
      const hidden = await api(app.url, 'GET', `/api/blobs/${later}`);
      expect(hidden.status).toBe(404);
      expect(hidden.text).toBe((await api(app.url, 'GET', '/api/blobs/bafkreinotarealcidatall')).text);
      expect((await api(app.url, 'GET', `/api/blobs/${later}`, { token: owner.token })).status).toBe(200);
    } finally {
      await api(app.url, 'POST', `/api/tree/${tree}/unpublish`, { token: owner.token });
    }
    expect((await api(app.url, 'GET', `/api/blobs/${recordCid}`)).status).toBe(404);
  });

  it('exports evidence the verifier accepts, and that it rejects once modified', async () => {
    const tree = enrolled.tree_id;
    expect((await api(app.url, 'GET', `/api/provenance/${tree}/export`, { token: owner.token })).status).toBe(409);
    const t = await api(app.url, 'GET', `/api/tree/${tree}/timeline`, { token: owner.token });
    await api(app.url, 'POST', `/api/tree/${tree}/event/${t.json.events[0].event_id}/anchor`, { token: owner.token });
    await api(app.url, 'POST', `/api/tree/${tree}/event`, { token: owner.token, json: { type: 'care', note: 'after the anchor' } });
    const ex = await api(app.url, 'GET', `/api/provenance/${tree}/export`, { token: owner.token });
    expect(ex.status).toBe(200);
    expect(ex.json).toMatchObject({
      format: 'markless-evidence-bundle',
      version: 1,
      anchor: { backend: 'local' },
      proof: { index: 0, n: 1 },
    });
    const good = path.join(dir, 'tree.json');
    await writeFile(good, ex.text);
    const key = (await api(app.url, 'GET', '/.well-known/markless.json')).json.anchoring.public_key as string;
    const lines: string[] = [];
    expect(await runVerify([good, '--trust-key', key, '--expect', enrolled.code], (l) => lines.push(l))).toBe(0);
    expect(lines.filter((l) => l.startsWith('PASS'))).toHaveLength(11);
    // One command, as the README shows it.
    const cli = await run('npm', ['run', '--silent', 'verify', '--', good, '--trust-key', key], { cwd: process.cwd() });
    expect(cli.stdout).toContain('checks passed');

    const forged = JSON.parse(ex.text);
    forged.events[1].body.note = 'rewritten';
    const bad = path.join(dir, 'forged.json');
    await writeFile(bad, JSON.stringify(forged));
    const out: string[] = [];
    expect(await runVerify([bad, '--trust-key', key], (l) => out.push(l))).toBe(1);
    expect(out.find((l) => l.startsWith('FAIL chain'))).toBeDefined();

    const swapped = JSON.parse(ex.text);
    const cid = Object.keys(swapped.images)[0]!;
    swapped.images[cid] = Buffer.from('not the photo').toString('base64');
    await writeFile(bad, JSON.stringify(swapped));
    const out2: string[] = [];
    expect(await runVerify([bad, '--trust-key', key], (l) => out2.push(l))).toBe(1);
    expect(out2).toContain(`FAIL image ${cid} content does not match its CID`);
  });
});
