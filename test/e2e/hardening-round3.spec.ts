/**
 * The third security round: no account through DID sign-in while sign-up is closed, failed
 * sign-ups throttled per address, capped survey progress streams, bounded OCR, 401 for a presented
 * token that is no longer valid, bidirectional marks cleaned from batch file names, and a care
 * photo sent in the care log's field name. (Admins by a listed name: admin-grants.spec.ts; cookie
 * writes without Origin: hardening-input.spec.ts.)
 */
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didKeyFromRaw } from '../../api/src/services/did.js';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { batchForm, surface } from '../support/fruit-batch.js';
import { uniqueName } from '../support/postgres.js';
import { syntheticClip, videoForm } from '../support/video.js';

const PW = 'Bark-and-peel-42';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function didSignIn(base: string, key = generateKeyPairSync('ed25519')) {
  const raw = Buffer.from(key.publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const did = didKeyFromRaw(raw);
  const c = await api(base, 'GET', '/api/auth/did/challenge');
  expect(c.status).toBe(200);
  const signature = sign(null, Buffer.from(c.json.message, 'utf8'), key.privateKey as KeyObject).toString('base64');
  return {
    did,
    answer: await api(base, 'POST', '/api/auth/did/verify', {
      json: { did, nonce: c.json.nonce, signature },
      headers: { 'accept-language': 'en' },
    }),
  };
}

describe.each<Mode>(['embedded', 'distributed'])('sign-up closed and sign-up probing (%s)', (mode) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      engine: 'deterministic',
      mode,
      env: { SIGNUP_OPEN: 'false', SIGNUP_SOURCE_FAILURES: '3', LOGIN_MAX_LOCK_S: '120' },
    });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('a DID with no account gets 403 signup_closed and no account; a DID that has one still signs in', async () => {
    const fresh = await didSignIn(app.url);
    expect(fresh.answer.status).toBe(403);
    expect(fresh.answer.json).toMatchObject({ ok: false, code: 'signup_closed', error: 'Sign-up is closed.' });
    expect((await app.container.db.query('select 1 from accounts where did = $1', [fresh.did])).rows).toHaveLength(0);
    expect(
      (await app.container.db.query('select 1 from tokens t join accounts a on a.id = t.account_id where a.did = $1', [fresh.did])).rows,
    ).toHaveLength(0);

    // An account made while sign-up was open keeps working once it is closed.
    const key = generateKeyPairSync('ed25519');
    const did = didKeyFromRaw(Buffer.from(key.publicKey.export({ format: 'jwk' }).x!, 'base64url'));
    await app.container.db.query('insert into accounts (id, username, did) values ($1, $2, $3)', [randomUUID(), uniqueName('did_'), did]);
    const known = await didSignIn(app.url, key);
    expect(known.answer.status).toBe(200);
    expect((await api(app.url, 'GET', '/api/me', { token: known.answer.json.token })).json.account.did).toBe(did);
  });

  it('failed sign-ups are throttled per address, so taken names cannot be listed at full speed', async () => {
    // Sign-up is closed on this service: open it for this address by hand is not possible, so the
    // probe is a second service with sign-up open and the same low threshold.
    const open = await startTestApp({ engine: 'deterministic', mode, env: { SIGNUP_SOURCE_FAILURES: '3', LOGIN_MAX_LOCK_S: '120' } });
    try {
      const taken = await signup(open.url, 'taken');
      const probe = () =>
        api(open.url, 'POST', '/api/signup', { json: { username: taken.username, password: PW }, headers: { 'accept-language': 'en' } });
      for (let i = 0; i < 2; i++) expect((await probe()).json.code).toBe('username_taken');
      const third = await probe();
      expect(third.status).toBe(429);
      expect(third.json.code).toBe('signup_throttled');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(third.json.error).toMatch(/^Too many failed sign-ups from your address\. Wait \d+ seconds and try again\.$/);
      // While locked, a free name is refused the same way: the answer says nothing about names.
      const free = await api(open.url, 'POST', '/api/signup', { json: { username: uniqueName('free_'), password: PW } });
      expect(free.status).toBe(429);
      expect(free.json.code).toBe('signup_throttled');
      // Signing in is not sign-up: the owner of the taken name still logs in.
      expect((await api(open.url, 'POST', '/api/login', { json: { username: taken.username, password: PW } })).status).toBe(200);
    } finally {
      await open.stop();
    }
  }, 120_000);
});

describe('streams, OCR, stale tokens, file names (embedded)', () => {
  let app: TestApp;
  let owner: { token: string; id: string; username: string };
  let stranger: { token: string; id: string; username: string };
  const open: AbortController[] = [];

  beforeAll(async () => {
    // The video queue is not served here, so surveys stay running and their streams stay open.
    app = await startTestApp({
      engine: 'deterministic',
      env: {
        WORKER_QUEUES: 'identify,enrol',
        SSE_MAX_PER_SURVEY: '2',
        SSE_MAX_PER_ACCOUNT: '3',
        OCR_MAX_CONCURRENT: '2',
        OCR_MAX_PER_ACCOUNT: '1',
      },
    });
    owner = await signup(app.url, 'owner');
    stranger = await signup(app.url, 'stranger');
  }, 120_000);
  afterAll(async () => {
    for (const c of open) c.abort();
    await app?.stop();
  });

  async function stream(survey: string, token = owner.token) {
    const ctl = new AbortController();
    const res = await fetch(`${app.url}/api/survey/${survey}/events`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'test-request-id', 'accept-language': 'en' },
      signal: ctl.signal,
    });
    if (res.status !== 200)
      return { status: res.status, json: (await res.json()) as Record<string, unknown>, retry: res.headers.get('retry-after'), ctl };
    const first = await res.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('event: progress');
    open.push(ctl);
    return { status: 200, json: null, retry: null, ctl };
  }

  it('survey progress streams are capped per survey and per account, and a closed one frees its slot', async () => {
    const clip = await syntheticClip(1);
    const surveys: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await api(app.url, 'POST', '/api/survey', { token: owner.token, body: videoForm(clip, { kind: 'fruit' }) });
      expect(r.status, r.text).toBe(202);
      surveys.push(r.json.survey_id);
    }
    const [a, b] = surveys as [string, string];
    const s1 = await stream(a);
    expect((await stream(a)).status).toBe(200);
    const over = await stream(a);
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({
      code: 'stream_limit_survey',
      error: 'This survey already has 2 progress streams open. Close one, or try again in 5 seconds.',
    });
    expect(over.retry).toBe('5');
    // Another account's survey is the plain 404, never a 429 that would say it exists.
    const theirs = await stream(a, stranger.token);
    const none = await stream('00000000-0000-4000-8000-000000000000', stranger.token);
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual(none.json);
    expect((await stream(b)).status).toBe(200);
    const acct = await stream(b);
    expect(acct.status).toBe(429);
    expect(acct.json!.code).toBe('stream_limit_account');
    // A closed stream frees its slot.
    s1.ctl.abort();
    const end = Date.now() + 10_000;
    let again = await stream(b);
    while (again.status !== 200 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
      again = await stream(b);
    }
    expect(again.status).toBe(200);
  }, 60_000);

  it('OCR runs are bounded per account and on the server: 429 with Retry-After, and slots are given back', async () => {
    // A large, nearly blank label photo: small on the wire, many pixels to decode.
    const big = await sharp({ create: { width: 6500, height: 6500, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const match = (token: string) => {
      const form = new FormData();
      form.append('files', new Blob([new Uint8Array(big)], { type: 'image/png' }), 'label.png');
      return api(app.url, 'POST', '/api/care/match', { token, body: form, headers: { 'accept-language': 'en' } });
    };
    // One account, three at once: one is read, the others wait their turn with a 429.
    const mine = await Promise.all([match(owner.token), match(owner.token), match(owner.token)]);
    expect(mine.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    const refused = mine.find((r) => r.status === 429)!;
    expect(refused.json).toMatchObject({ code: 'ocr_busy_account' });
    expect(refused.json.error).toMatch(/^Your account already has 1 label photos being read at once\./);
    expect(refused.headers.get('retry-after')).toBe('5');
    // Three accounts at once on a server bound to two: one hears the server is busy.
    const third = await signup(app.url, 'third');
    const all = await Promise.all([match(owner.token), match(stranger.token), match(third.token)]);
    expect(all.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect(all.find((r) => r.status === 429)!.json.code).toBe('ocr_busy');
    // Slots are given back: the next photo is read.
    expect((await match(owner.token)).status).toBe(200);
  }, 120_000);

  it('a presented token that is revoked or expired is a 401 on routes open to anonymous callers too', async () => {
    const s = await signup(app.url, 'stale');
    const feedback = (token: string) => api(app.url, 'POST', '/api/feedback', { token, form: { note: 'from a stale session' } });
    const blob = (token: string) =>
      api(app.url, 'GET', '/api/blobs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy', { token });
    expect((await api(app.url, 'POST', '/api/logout', { token: s.token })).status).toBe(200);
    for (const r of [await feedback(s.token), await blob(s.token), await feedback('mkl_made-up')]) {
      expect(r.status).toBe(401);
      expect(r.json.code).toBe('unauthorized');
    }
    const live = await signup(app.url, 'expiring');
    await app.container.db.query(`update tokens set expires_at = now() - interval '1 second' where hash = $1`, [sha256(live.token)]);
    expect((await feedback(live.token)).status).toBe(401);
    expect((await blob(live.token)).status).toBe(401);
    // Nothing was stored for the stale sessions; without a token the note is still taken.
    expect((await app.container.db.query(`select 1 from feedback where note = 'from a stale session'`)).rows).toHaveLength(0);
    expect((await api(app.url, 'POST', '/api/feedback', { form: { note: 'anonymous' } })).status).toBe(200);
  });

  it('batch file names lose bidirectional and zero-width marks, in the rows and in the CSV', async () => {
    const photo = await surface(913);
    const sneaky = 'invoice\u202Egpj.exe';
    const b = await api(app.url, 'POST', '/api/fruit/batch', {
      token: owner.token,
      body: batchForm([
        { name: sneaky, bytes: photo },
        { name: 'a\u200Bb\u2066c.jpg', bytes: photo },
        { name: 'bưởi.jpg', bytes: photo },
      ]),
    });
    expect(b.status, b.text).toBe(202);
    const rows = (await api(app.url, 'GET', `/api/fruit/batch/${b.json.batch_id}`, { token: owner.token })).json.rows;
    // Marks gone, and a Vietnamese name arrives as written (multipart file names are UTF-8).
    expect(rows.map((r: { file_name: string }) => r.file_name)).toEqual(['invoicegpj.exe', 'abc.jpg', 'bưởi.jpg']);
    const stored = await app.container.db.query<{ file_name: string }>('select file_name from fruit_batch_rows order by idx');
    for (const r of stored.rows) expect(r.file_name).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069]/);
    const csv = await fetch(`${app.url}/api/fruit/batch/${b.json.batch_id}/results.csv`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    const text = await csv.text();
    expect(text).toContain('invoicegpj.exe');
    expect(text).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069]/);
  });

  it('care matching takes the photo as `photo` too, and names a file field it does not read', async () => {
    const form = (field: string) => {
      const f = new FormData();
      f.append('text', '');
      f.append(field, new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/png' }), 'label.png');
      return f;
    };
    // Read as a photo: not an image is the 422 of a photo, not a silently empty match.
    const asPhoto = await api(app.url, 'POST', '/api/care/match', {
      token: owner.token,
      body: form('photo'),
      headers: { 'accept-language': 'en' },
    });
    expect(asPhoto.status).toBe(422);
    expect(asPhoto.json.code).toBe('file_wrong_type');
    const stray = await api(app.url, 'POST', '/api/care/match', {
      token: owner.token,
      body: form('picture'),
      headers: { 'accept-language': 'en' },
    });
    expect(stray.status).toBe(422);
    expect(stray.json).toMatchObject({ code: 'file_field_unexpected', detail: 'picture' });
    expect(stray.json.error).toBe('A file was sent in the field "picture", which this route does not read. Send files in: files, photo.');
  });
});
