import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { identify } from '../../shared/src/evidence/record.js';
import { decodeSideRecord } from '../../shared/src/evidence/side-record.js';
import { startFakeKubo, type FakeKubo } from './anchor.fake-kubo.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runVerify } from '../../shared/src/evidence/verify-cli/verify-main.js';

/** The service key the verifier should pin, as the service publishes it. */
const serviceKey = async (url: string) => (await api(url, 'GET', '/.well-known/markless.json')).json.anchoring.public_key as string;

/** Run the offline verifier on an export body; returns its exit code and lines. */
async function verifyBundle(text: string, key: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'side-verify-'));
  try {
    const file = path.join(dir, 'bundle.json');
    await writeFile(file, text);
    const lines: string[] = [];
    return { code: await runVerify([file, '--trust-key', key], (l) => lines.push(l)), lines };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A small square field near Can Tho, closed as GeoJSON requires. */
const FIELD = {
  type: 'Polygon',
  coordinates: [
    [
      [105.78, 10.03],
      [105.79, 10.03],
      [105.79, 10.04],
      [105.78, 10.04],
      [105.78, 10.03],
    ],
  ],
};

async function enrolFruit(app: TestApp, token: string, seed: number, fields: Record<string, string> = {}) {
  const photos = await Promise.all([1, 2].map((k) => textureImage(seed * 10 + k)));
  const r = await api(app.url, 'POST', '/api/fruit/enroll', { token, body: photoForm(photos, fields) });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

const putBoundary = (app: TestApp, token: string, farm: string, boundary: unknown) =>
  api(app.url, 'PUT', `/api/farm/${farm}/boundary`, { token, json: { boundary } });

describe.each([
  ['off (the default)', false],
  ['on', true],
] as const)('fruit and farm-boundary evidence, switch %s', (_label, on) => {
  let app: TestApp;
  let kubo: FakeKubo;
  let owner: { token: string };
  beforeAll(async () => {
    kubo = await startFakeKubo();
    app = await startTestApp({
      engine: 'deterministic',
      env: { KUBO_API_URL: kubo.url, ...(on ? { EVIDENCE_FRUIT_AND_BOUNDARIES: 'true' } : {}) },
    });
    owner = await signup(app.url, 'grower');
  });
  afterAll(async () => {
    await app?.stop();
    await kubo?.close();
  });

  it(
    on
      ? 'records a fruit canonically, ties it into its chain and pins it'
      : 'keeps a fruit on the server only: no record, no event, nothing pinned',
    async () => {
      const tree = await api(app.url, 'POST', '/api/enroll', {
        token: owner.token,
        body: photoForm([await textureImage(71), await textureImage(72)]),
      });
      const fruit = await enrolFruit(app, owner.token, 8, { tree_id: tree.json.tree_id });
      const cids = fruit.images.map((i: { cid: string }) => i.cid);
      const rows = await app.container.db.query<{ record_cbor: Buffer; record_cid: string }>(
        'select record_cbor, record_cid from entity_records where entity_id = $1',
        [fruit.fruit_id],
      );
      const tl = await api(app.url, 'GET', `/api/fruit/${fruit.fruit_id}/timeline`, { token: owner.token });
      if (!on) {
        expect(fruit.evidence).toBe('server_only');
        expect(rows.rows).toHaveLength(0);
        expect(tl.json.events).toEqual([]);
        for (const cid of cids) expect(kubo.pinned).not.toContain(cid);
        expect((await api(app.url, 'GET', `/api/evidence/fruit/${fruit.fruit_id}/export`, { token: owner.token })).status).toBe(404);
        return;
      }
      expect(fruit.evidence).toBe('recorded');
      const bytes = new Uint8Array(rows.rows[0]!.record_cbor);
      expect(identify(bytes)).toEqual({ cid: fruit.record_cid, hash: fruit.record_hash });
      const record = decodeSideRecord(bytes);
      expect(record).toMatchObject({ kind: 'fruit', fruit_id: fruit.fruit_id, tree_code: tree.json.code, schema: 1 });
      expect((record.images as { toString(): string }[]).map(String)).toEqual(cids);
      expect(tl.json.chain_ok).toBe(true);
      expect(tl.json.events[0].body).toMatchObject({ type: 'enroll', record_cid: fruit.record_cid });
      expect(kubo.pinned).toEqual(expect.arrayContaining([...cids, fruit.record_cid]));
      // The record is on the chain, so the existing anchor route anchors it.
      const anchored = await api(app.url, 'POST', `/api/fruit/${fruit.fruit_id}/event/${tl.json.events[0].event_id}/anchor`, {
        token: owner.token,
      });
      expect(anchored.status).toBe(200);
      expect(anchored.json.anchor.status).toBe('confirmed');
      // The offline verifier checks the fruit's record, photos, chain, proof and anchor.
      const ex = await api(app.url, 'GET', `/api/evidence/fruit/${fruit.fruit_id}/export`, { token: owner.token });
      expect(ex.status).toBe(200);
      const key = await serviceKey(app.url);
      const ok = await verifyBundle(ex.text, key);
      expect(ok.lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
      expect(ok.code).toBe(0);
      expect(ok.lines).toContain(`PASS image ${cids[0]} content matches its CID`);
      expect(ok.lines.find((l) => l.startsWith('PASS record.cid'))).toContain('(fruit record)');
      const forged = JSON.parse(ex.text);
      forged.images[cids[0]] = Buffer.from('another fruit').toString('base64');
      const bad = await verifyBundle(JSON.stringify(forged), key);
      expect(bad.code).toBe(1);
      expect(bad.lines).toContain(`FAIL image ${cids[0]} content does not match its CID`);
      const stranger = await signup(app.url, 'nosy');
      expect((await api(app.url, 'GET', `/api/evidence/fruit/${fruit.fruit_id}/export`, { token: stranger.token })).status).toBe(404);
    },
  );

  it(on ? 'records each boundary version on the farm chain' : 'stores a boundary on the server only', async () => {
    await enrolFruit(app, owner.token, 9, { farm_id: `farm-${on}` });
    const r = await putBoundary(app, owner.token, `farm-${on}`, FIELD);
    expect(r.status, r.text).toBe(200);
    expect(r.json.boundary).toEqual(FIELD);
    const got = await api(app.url, 'GET', `/api/farm/farm-${on}/boundary`, { token: owner.token });
    expect(got.json).toEqual(r.json);
    const tl = await api(app.url, 'GET', `/api/farm/farm-${on}/timeline`, { token: owner.token });
    const boundaryEvents = tl.json.events.filter((e: { body: { type: string } }) => e.body.type === 'boundary');
    if (!on) {
      expect(r.json.evidence).toBe('server_only');
      expect(boundaryEvents).toHaveLength(0);
      return;
    }
    expect(r.json.evidence).toBe('recorded');
    const row = await app.container.db.query<{ record_cbor: Buffer }>('select record_cbor from entity_records where record_cid = $1', [
      r.json.record_cid,
    ]);
    expect(decodeSideRecord(new Uint8Array(row.rows[0]!.record_cbor))).toMatchObject({
      kind: 'farm_boundary',
      farm_id: `farm-${on}`,
      rings_microdeg: [
        [
          [105780000, 10030000],
          [105790000, 10030000],
          [105790000, 10040000],
          [105780000, 10040000],
          [105780000, 10030000],
        ],
      ],
    });
    expect(boundaryEvents).toHaveLength(1);
    expect(kubo.pinned).toContain(r.json.record_cid);
    const moved = await putBoundary(app, owner.token, `farm-${on}`, {
      ...FIELD,
      coordinates: [
        [
          [105.78, 10.03],
          [105.8, 10.03],
          [105.8, 10.05],
          [105.78, 10.03],
        ],
      ],
    });
    expect(moved.json.record_cid).not.toBe(r.json.record_cid);
    const after = await api(app.url, 'GET', `/api/farm/farm-${on}/timeline`, { token: owner.token });
    expect(after.json.chain_ok).toBe(true);
    const events = after.json.events.filter((e: { body: { type: string } }) => e.body.type === 'boundary');
    expect(events).toHaveLength(2);
    // Anchored, the newest boundary version verifies offline (it names no images).
    expect((await api(app.url, 'GET', `/api/evidence/farm/farm-${on}/export`, { token: owner.token })).status).toBe(409);
    await api(app.url, 'POST', `/api/farm/farm-${on}/event/${events[1].event_id}/anchor`, { token: owner.token });
    const ex = await api(app.url, 'GET', `/api/evidence/farm/farm-${on}/export`, { token: owner.token });
    expect(ex.json.record.cid).toBe(moved.json.record_cid);
    const v = await verifyBundle(ex.text, await serviceKey(app.url));
    expect(v.lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(v.lines.find((l) => l.startsWith('PASS record.cid'))).toContain('(farm_boundary record)');
  });

  it("answers another account's farm like a missing one, keeps farms per account, and refuses a broken polygon", async () => {
    const farm = `farm-owned-${on}`;
    expect((await putBoundary(app, owner.token, farm, FIELD)).status).toBe(200);
    const stranger = await signup(app.url, 'neighbour');
    const foreign = await api(app.url, 'GET', `/api/farm/${farm}/boundary`, { token: stranger.token });
    const missing = await api(app.url, 'GET', '/api/farm/nobody-farm/boundary', { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    // Farms are per account: the stranger's PUT makes the stranger's own farm of that name, and
    // never touches the owner's.
    const other = {
      type: 'Polygon',
      coordinates: [
        [
          [106.0, 11.0],
          [106.01, 11.0],
          [106.01, 11.01],
          [106.0, 11.0],
        ],
      ],
    };
    expect((await putBoundary(app, stranger.token, farm, other)).status).toBe(200);
    expect((await api(app.url, 'GET', `/api/farm/${farm}/boundary`, { token: stranger.token })).json.boundary).toEqual(other);
    const open = await putBoundary(app, owner.token, farm, {
      type: 'Polygon',
      coordinates: [
        [
          [105.78, 10.03],
          [105.79, 10.03],
          [105.79, 10.04],
          [105.7, 10.0],
        ],
      ],
    });
    expect(open.status).toBe(422);
    const got = await api(app.url, 'GET', `/api/farm/${farm}/boundary`, { token: owner.token });
    expect(got.json.boundary).toEqual(FIELD);
    expect((await api(app.url, 'GET', `/api/farm/${farm}/boundary`)).status).toBe(401);
  });
});
