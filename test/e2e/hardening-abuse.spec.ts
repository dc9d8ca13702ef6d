/**
 * Abuse, fairness and crash safety: the login throttle and bounded password hashing, TRUST_PROXY
 * counting from the right, video limits probed before decoding, Idempotency-Key on enrolment and
 * identification, and the orphan-blob sweep. One app per mode (Redis rate limits, BullMQ jobs and
 * S3 blobs in distributed mode).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../../api/src/main.js';
import { storeBlob } from '../../shared/src/repos/evidence/blob-registry.js';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { until } from '../support/process.js';
import { syntheticClip, videoForm } from '../support/video.js';

const PW = 'Bark-and-peel-42';
const ENV = {
  TRUST_PROXY: 'true',
  TRUST_PROXY_HOPS: '1',
  DID_CHALLENGE_PER_MIN: '3',
  VIDEO_MAX_SECONDS: '4',
  VIDEO_MAX_PIXELS: String(400 * 300),
  ORPHAN_BLOB_GRACE_S: '1',
};

describe.each<Mode>(['embedded', 'distributed'])('hardening: abuse and crash safety (%s)', (mode) => {
  let app: TestApp;
  let dataDir: string;
  let user: { token: string; id: string; username: string };
  const upload = async (p: string, form: FormData, headers: Record<string, string> = {}) => {
    const r = await fetch(app.url + p, { method: 'POST', headers: { authorization: `Bearer ${user.token}`, ...headers }, body: form });
    return { status: r.status, json: (await r.json()) as any, headers: r.headers };
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-abuse-'));
    app = await startTestApp({ engine: 'deterministic', mode, env: ENV, dataDir });
    user = await signup(app.url, 'abuse');
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('locks sign-in after 5 wrong passwords (429 + Retry-After, even for the right one), for unknown names too', async () => {
    const target = await signup(app.url, 'victim');
    for (let i = 0; i < 4; i++)
      expect((await api(app.url, 'POST', '/api/login', { json: { username: target.username, password: `Wrong-pass-${i}0` } })).status).toBe(
        401,
      );
    const fifth = await api(app.url, 'POST', '/api/login', { json: { username: target.username, password: 'Wrong-pass-50' } });
    expect(fifth.status).toBe(429);
    const right = await api(app.url, 'POST', '/api/login', {
      json: { username: target.username, password: PW },
      headers: { 'accept-language': 'en' },
    });
    expect(right.status).toBe(429);
    expect(right.json.code).toBe('login_locked');
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(right.json.error).toMatch(/Wait \d+ seconds/);
    // Someone else's sign-in is unaffected.
    expect((await api(app.url, 'POST', '/api/login', { json: { username: user.username, password: PW } })).status).toBe(200);
    // Unknown usernames lock the same way, so a 429 says nothing about which accounts exist.
    const ghost = `ghost_${Date.now()}`;
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push((await api(app.url, 'POST', '/api/login', { json: { username: ghost, password: `Wrong-pass-${i}0` } })).status);
    expect(answers).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('bounds concurrent password hashing per client address: a flood gets 429s, not a queue', async () => {
    const burst = await Promise.all(
      Array.from({ length: 12 }, () =>
        api(app.url, 'POST', '/api/login', {
          json: { username: user.username, password: PW },
          headers: { 'x-forwarded-for': '198.51.100.7' },
        }),
      ),
    );
    const codes = burst.map((r) => r.status);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0);
    expect(codes.filter((c) => c === 200).length).toBeGreaterThan(0);
    expect(codes.every((c) => c === 200 || c === 429)).toBe(true);
    // Another address is not held up by that flood.
    expect(
      (
        await api(app.url, 'POST', '/api/login', {
          json: { username: user.username, password: PW },
          headers: { 'x-forwarded-for': '198.51.100.8' },
        })
      ).status,
    ).toBe(200);
  });

  it('TRUST_PROXY counts X-Forwarded-For from the right: a client-written left-most entry does not bypass the DID challenge limit', async () => {
    const codes = [];
    for (let i = 0; i < 5; i++) {
      codes.push(
        (await api(app.url, 'GET', '/api/auth/did/challenge', { headers: { 'x-forwarded-for': `10.0.0.${i}, 203.0.113.50` } })).status,
      );
    }
    expect(codes).toEqual([200, 200, 200, 429, 429]);
    // A different real client (right-most entry) has its own budget.
    expect(
      (await api(app.url, 'GET', '/api/auth/did/challenge', { headers: { 'x-forwarded-for': '10.0.0.1, 203.0.113.51' } })).status,
    ).toBe(200);
  });

  it('sets Secure on the session cookie when the request came over TLS through the trusted proxy', async () => {
    const tls = await api(app.url, 'POST', '/api/login', {
      json: { username: user.username, password: PW },
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.20' },
    });
    expect(tls.status).toBe(200);
    expect(tls.headers.get('set-cookie')).toMatch(/;\s*secure/i);
    const plain = await api(app.url, 'POST', '/api/login', {
      json: { username: user.username, password: PW },
      headers: { 'x-forwarded-for': '198.51.100.21' },
    });
    expect(plain.headers.get('set-cookie')).not.toMatch(/;\s*secure/i);
  });

  it('probes videos before decoding: too long or too large is 422 naming the limit; bytes with ftyp that are no video are refused', async () => {
    const tree = await upload('/api/enroll', photoForm([await textureImage(1201, 256)], { species: 'durian' }));
    expect(tree.status).toBe(200);
    const blobs = async () => (await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs')).rows[0]!.n;
    const before = await blobs();
    const long = await upload('/api/identify/video', videoForm(await syntheticClip(8, 160, 120, 2)), { 'accept-language': 'en' });
    expect(long.status).toBe(422);
    expect(long.json).toMatchObject({ code: 'video_too_long', detail: 'file', reason: 'duration' });
    expect(long.json.error).toMatch(/4-second limit/);
    const wide = await upload(`/api/tree/${tree.json.tree_id}/video`, videoForm(await syntheticClip(1, 640, 480, 2)));
    expect(wide.status).toBe(422);
    expect(wide.json).toMatchObject({ code: 'video_too_big_frame', reason: 'resolution' });
    const fake = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(2000, 7)]);
    const junk = await upload(`/api/tree/${tree.json.tree_id}/fruit_video`, videoForm(fake));
    expect(junk.status).toBe(422);
    expect(junk.json).toMatchObject({ code: 'video_undecodable', reason: 'no_video_stream' });
    expect(await blobs()).toBe(before);
    const ok = await upload(`/api/tree/${tree.json.tree_id}/fruit_video`, videoForm(await syntheticClip(2, 320, 240, 5)));
    expect(ok.status).toBe(200);
  });

  it('Idempotency-Key on enrol and identify returns the first result and makes no duplicate tree', async () => {
    const files = [await textureImage(1301, 256), await textureImage(1302, 256)];
    const key = `enrol-${Date.now()}`;
    const first = await upload('/api/enroll', photoForm(files, { species: 'durian' }), { 'idempotency-key': key });
    const again = await upload('/api/enroll', photoForm(files, { species: 'durian' }), { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.json.tree_id).toBe(first.json.tree_id);
    const n = await app.container.db.query<{ n: number }>(
      'select count(*)::int as n from images i join individuals t on t.id = i.individual_id where t.owner_id = $1 and i.cid = any($2)',
      [user.id, first.json.images.map((x: any) => x.cid)],
    );
    expect(n.rows[0]!.n).toBe(2);
    // Another key (or none) is another enrolment.
    const other = await upload('/api/enroll', photoForm(files, { species: 'durian' }), { 'idempotency-key': `${key}-b` });
    expect(other.json.tree_id).not.toBe(first.json.tree_id);
    const q1 = await upload('/api/identify', photoForm([files[0]!]), { 'idempotency-key': `${key}-q` });
    const q2 = await upload('/api/identify', photoForm([files[0]!]), { 'idempotency-key': `${key}-q` });
    expect(q2.json).toEqual(q1.json);
    expect((await upload('/api/enroll', photoForm(files), { 'idempotency-key': 'bad key with spaces' })).json).toMatchObject({
      code: 'validation_failed',
      detail: 'Idempotency-Key',
    });
  });

  it('sweeps a blob an interrupted upload left behind (no job, no image) at start-up, and keeps referenced ones', async () => {
    const c = app.container;
    // What a kill -9 between storing the bytes and enqueueing the job leaves: staged, stored, unreferenced.
    const orphanBytes = await textureImage(1401, 128);
    const { cid: orphan } = await storeBlob(c, orphanBytes, 'image/jpeg');
    await c.db.query(`insert into upload_staging (cid, created_at) values ($1, now() - interval '1 hour')`, [orphan]);
    // A staged blob that an image row has come to reference must survive.
    const kept = (await c.db.query<{ cid: string }>('select cid from images limit 1')).rows[0]!.cid;
    await c.db.query(`insert into upload_staging (cid, created_at) values ($1, now() - interval '1 hour')`, [kept]);
    let second: Awaited<ReturnType<typeof start>> | undefined;
    if (mode === 'embedded') {
      // Restart the one embedded process (PGlite has a single owner) on the same data folder.
      await app.stop();
      app = await startTestApp({ engine: 'deterministic', mode, env: ENV, dataDir });
    } else {
      // Another API process starting against the same PostgreSQL and S3 runs the start-up sweep.
      second = await start({ ...app.env, PORT: '0' });
    }
    const c2 = app.container;
    // Row first, then bytes: wait for both to go.
    await until(
      async () => (await c2.db.query('select 1 from blobs where cid = $1', [orphan])).rows.length === 0 && !(await c2.blobs.has(orphan)),
      60_000,
      100,
    );
    expect((await c2.db.query('select 1 from blobs where cid = $1', [kept])).rows.length).toBe(1);
    expect(await c2.blobs.get(kept)).not.toBeNull();
    await until(
      async () => (await c2.db.query('select 1 from upload_staging where cid = any($1)', [[orphan, kept]])).rows.length === 0,
      60_000,
      100,
    );
    await second?.stop();
  });
});
