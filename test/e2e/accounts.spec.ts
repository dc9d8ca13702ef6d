import { createHash, generateKeyPairSync, scryptSync, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type MessageCode } from '../../shared/src/domain/messages.js';
import { didKeyFromRaw } from '../../api/src/services/did.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { uniqueName } from '../support/postgres.js';

const GOOD_PW = 'Bark-and-peel-42';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A fresh Ed25519 key and its did:key, as a phone wallet would hold them. */
function didKeyPair(): { did: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { did: didKeyFromRaw(raw), privateKey };
}
const signB64 = (key: KeyObject, message: string, enc: BufferEncoding = 'base64') =>
  sign(null, Buffer.from(message, 'utf8'), key).toString(enc);

async function challenge(base: string) {
  const r = await api(base, 'GET', '/api/auth/did/challenge');
  expect(r.status).toBe(200);
  return r.json as { nonce: string; message: string; expires_at: string };
}

describe('accounts (embedded)', () => {
  let app: TestApp;
  const post = (p: string, json: unknown, headers?: Record<string, string>) => api(app.url, 'POST', p, { json, headers });
  const me = (token: string) => api(app.url, 'GET', '/api/me', { token });

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', env: { ADMIN_USERS: 'boss_admin, second.admin', TOKEN_TTL_S: '60' } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('signup → login → me → logout → me is 401, and logout revokes only that token', async () => {
    const username = uniqueName('flow_');
    const s = await post('/api/signup', { username, password: GOOD_PW });
    expect(s.status).toBe(200);
    expect(s.json).toMatchObject({ ok: true, token_type: 'Bearer', expires_in: 60, account: { username, is_admin: false, did: null } });
    const l = await post('/api/login', { username, password: GOOD_PW });
    expect(l.status).toBe(200);
    expect(l.json.token).not.toBe(s.json.token);
    expect(l.json.account.id).toBe(s.json.account.id);
    const m = await me(l.json.token);
    expect(m.status).toBe(200);
    expect(m.json.account).toMatchObject({ id: s.json.account.id, username });
    expect((await api(app.url, 'POST', '/api/logout', { token: l.json.token })).status).toBe(200);
    const after = await me(l.json.token);
    expect(after.status).toBe(401);
    expect(after.json).toMatchObject({ ok: false, code: 'unauthorized' });
    expect((await me(s.json.token)).status).toBe(200);
  });

  it('401s protected routes without a token or with a made-up one', async () => {
    expect((await api(app.url, 'GET', '/api/me')).status).toBe(401);
    expect((await me('mkl_not-a-real-token')).status).toBe(401);
    expect((await api(app.url, 'POST', '/api/logout-all')).status).toBe(401);
  });

  const ruleCases: Array<[string, string, string, MessageCode]> = [
    ['username of 2 characters', 'ab', GOOD_PW, 'username_invalid'],
    ['username of 33 characters', 'a'.repeat(33), GOOD_PW, 'username_invalid'],
    ['username with uppercase', 'Farmer_ok', GOOD_PW, 'username_invalid'],
    ['username with a hyphen', 'farmer-ok', GOOD_PW, 'username_invalid'],
    ['username with a space', 'farmer ok', GOOD_PW, 'username_invalid'],
    ['password of 9 characters', 'u_short', 'Abcdefg1!', 'password_too_short'],
    ['password of one class (lowercase)', 'u_simple', 'abcdefghijkl', 'password_too_simple'],
    ['password of one class (digits)', 'u_digits', '1234567890', 'password_too_simple'],
    ['password of one class (qwertyuiop: also common, first rule broken wins)', 'u_qwerty', 'qwertyuiop', 'password_too_simple'],
    ['common password with two classes', 'u_common', 'password123', 'password_common'],
    ['common password, other case', 'u_common2', 'Q1W2E3R4T5', 'password_common'],
    ['repeated letter and a digit (zxcvbn score below 3)', 'u_weak1', 'aaaaaaaaa1', 'password_weak'],
    ['capital and repeated letter (zxcvbn score below 3)', 'u_weak2', 'Aaaaaaaaaa', 'password_weak'],
    ['reserved username admin', 'admin', GOOD_PW, 'username_reserved'],
    ['reserved username root', 'root', GOOD_PW, 'username_reserved'],
    ['reserved username administrator', 'administrator', GOOD_PW, 'username_reserved'],
  ];
  it.each(ruleCases)('signup refuses a %s with 400 naming the rule', async (_, username, password, code) => {
    const vi = await post('/api/signup', { username, password });
    expect(vi.status).toBe(400);
    expect(vi.json).toEqual({ ok: false, code, error: messages[code].vi, detail: messages[code].vi, request_id: 'test-request-id' });
    const en = await post('/api/signup', { username, password }, { 'Accept-Language': 'en-GB,en;q=0.9' });
    expect(en.status).toBe(400);
    expect(en.json).toMatchObject({ code, error: messages[code].en });
    const exists = await app.container.db.query('select 1 from accounts where username = $1', [username]);
    expect(exists.rows).toHaveLength(0);
  });

  it.each([
    ['3-character username', 'abc', GOOD_PW],
    ['32-character username with dots, digits and underscores', `a.b_9${'x'.repeat(27)}`, GOOD_PW],
    ['10-character two-class password', 'pw_edge', 'Tuvxyzkmnq'],
  ])('signup accepts a %s (the boundary)', async (_, username, password) => {
    expect((await post('/api/signup', { username, password })).status).toBe(200);
  });

  it('refuses a taken username with 400 (a signup rule)', async () => {
    const { username } = await signup(app.url);
    const r = await post('/api/signup', { username, password: 'Other-pass-77' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ ok: false, code: 'username_taken', error: messages.username_taken.vi });
  });

  it('answers a wrong password and an unknown user with the same 401 body', async () => {
    const { username } = await signup(app.url);
    const wrong = await post('/api/login', { username, password: 'Wrong-pass-99' });
    const unknown = await post('/api/login', { username: uniqueName('ghost_'), password: 'Wrong-pass-99' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.json).toEqual(unknown.json);
    expect(wrong.json).toMatchObject({ code: 'invalid_credentials', error: messages.invalid_credentials.vi });
  });

  it.each([
    ['a number as username', { username: 123, password: GOOD_PW }, 'username'],
    ['an array as password', { username: 'typed_u', password: ['x'] }, 'password'],
    ['a missing password', { username: 'typed_u' }, 'password'],
  ])('422s %s and names the field', async (_, body, field) => {
    for (const p of ['/api/signup', '/api/login']) {
      const r = await post(p, body);
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({ ok: false, code: 'validation_failed', detail: field });
      expect(r.json.error).toContain(field);
    }
  });

  it('logout-all revokes the tokens of every login, and no other account', async () => {
    const { username } = await signup(app.url);
    const other = await signup(app.url);
    const a = (await post('/api/login', { username, password: GOOD_PW })).json.token;
    const b = (await post('/api/login', { username, password: GOOD_PW })).json.token;
    expect((await me(b)).status).toBe(200);
    const r = await api(app.url, 'POST', '/api/logout-all', { token: a });
    expect(r.status).toBe(200);
    expect(r.json.revoked).toBe(3); // the signup token and both logins
    expect((await me(a)).status).toBe(401);
    expect((await me(b)).status).toBe(401);
    expect((await me(other.token)).status).toBe(200);
  });

  it('401s an expired token, which worked a moment earlier', async () => {
    const { token } = await signup(app.url);
    const { rows } = await app.container.db.query<{ secs: number }>(
      'select extract(epoch from expires_at - created_at)::int as secs from tokens where hash = $1',
      [sha256(token)],
    );
    expect(rows[0]!.secs).toBe(60); // TOKEN_TTL_S reaches the stored expiry
    expect((await me(token)).status).toBe(200);
    await app.container.db.query(`update tokens set expires_at = now() - interval '1 second' where hash = $1`, [sha256(token)]);
    const r = await me(token);
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('unauthorized');
  });

  it('stores only the SHA-256 of each token, never the token itself', async () => {
    const { token, id } = await signup(app.url);
    const { rows } = await app.container.db.query<Record<string, unknown>>('select * from tokens where account_id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.hash).toBe(sha256(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(token.slice(4, 30));
    const raw = await app.container.db.query('select 1 from tokens where hash = $1', [token]);
    expect(raw.rows).toHaveLength(0);
  });

  it('hashes the password with scrypt, N ≥ 2^15, and the stored key really is that scrypt', async () => {
    const { id } = await signup(app.url);
    const { rows } = await app.container.db.query<{ password_hash: string }>('select password_hash from accounts where id = $1', [id]);
    const stored = rows[0]!.password_hash;
    expect(stored).not.toContain(GOOD_PW);
    const [alg, n, r, p, salt, key] = stored.split('$');
    expect(alg).toBe('scrypt');
    expect(Number(n)).toBeGreaterThanOrEqual(2 ** 15);
    const N = Number(n);
    const derived = scryptSync(GOOD_PW, Buffer.from(salt!, 'base64'), Buffer.from(key!, 'base64').length, {
      N,
      r: Number(r),
      p: Number(p),
      maxmem: 256 * N * Number(r),
    });
    expect(derived.toString('base64')).toBe(key);
  });

  it('signing up under a name in ADMIN_USERS grants nothing: only an operator makes admins', async () => {
    const boss = await post('/api/signup', { username: 'boss_admin', password: GOOD_PW });
    expect(boss.status).toBe(200);
    expect(boss.json.account.is_admin).toBe(false);
    expect((await me(boss.json.token)).json.account.is_admin).toBe(false);
    expect((await api(app.url, 'GET', '/api/admin/queues', { token: boss.json.token })).status).toBe(403);
    const second = await post('/api/signup', { username: 'second.admin', password: GOOD_PW });
    expect(second.json.account.is_admin).toBe(false);
    const plain = await signup(app.url);
    expect((await me(plain.token)).json.account.is_admin).toBe(false);
  });

  it('sets an HttpOnly, SameSite=Strict session cookie that authenticates /api/me alone', async () => {
    const username = uniqueName('cookie_');
    const s = await post('/api/signup', { username, password: GOOD_PW });
    const setCookie = s.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^markless_session=mkl_/);
    expect(setCookie).toMatch(/;\s*httponly/i);
    expect(setCookie).toMatch(/;\s*samesite=strict/i);
    expect(setCookie).toMatch(/;\s*path=\//i);
    const cookie = setCookie.split(';')[0]!;
    const m = await api(app.url, 'GET', '/api/me', { headers: { cookie } });
    expect(m.status).toBe(200);
    expect(m.json.account.username).toBe(username);
    const out = await api(app.url, 'POST', '/api/logout', { headers: { cookie, origin: app.url } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^markless_session=;/);
    expect((await api(app.url, 'GET', '/api/me', { headers: { cookie } })).status).toBe(401);
  });

  it('opens CORS to every origin without credentials, on preflight, success and error', async () => {
    const origin = 'https://example.org';
    const pre = await fetch(`${app.url}/api/signup`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const { token } = await signup(app.url);
    for (const t of [token, undefined]) {
      const r = await api(app.url, 'GET', '/api/me', { token: t, headers: { origin } });
      expect(r.status).toBe(t ? 200 : 401);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  describe('DID sign-in', () => {
    const verify = (json: unknown) => post('/api/auth/did/verify', json);

    it('issues a token for a signed challenge; the same key signs in to the same account', async () => {
      const { did, privateKey } = didKeyPair();
      const c = await challenge(app.url);
      expect(c.message).toContain(c.nonce);
      expect(Date.parse(c.expires_at)).toBeGreaterThan(Date.now());
      const r = await verify({ did, nonce: c.nonce, signature: signB64(privateKey, c.message) });
      expect(r.status).toBe(200);
      const m = await me(r.json.token);
      expect(m.status).toBe(200);
      expect(m.json.account).toMatchObject({ did, is_admin: false });
      const c2 = await challenge(app.url);
      const again = await verify({ did, nonce: c2.nonce, signature: signB64(privateKey, c2.message, 'hex') });
      expect(again.status).toBe(200);
      expect(again.json.account.id).toBe(m.json.account.id);
    });

    it('refuses the same nonce a second time with 400', async () => {
      const { did, privateKey } = didKeyPair();
      const c = await challenge(app.url);
      const body = { did, nonce: c.nonce, signature: signB64(privateKey, c.message) };
      expect((await verify(body)).status).toBe(200);
      const r = await verify(body);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ code: 'did_challenge_invalid', error: messages.did_challenge_invalid.vi });
    });

    it('401s a wrong signature and consumes the nonce', async () => {
      const { did, privateKey } = didKeyPair();
      const impostor = didKeyPair();
      const c = await challenge(app.url);
      const bad = await verify({ did, nonce: c.nonce, signature: signB64(impostor.privateKey, c.message) });
      expect(bad.status).toBe(401);
      expect(bad.json.code).toBe('did_signature_invalid');
      const late = await verify({ did, nonce: c.nonce, signature: signB64(privateKey, c.message) });
      expect(late.status).toBe(400);
    });

    it('400s an expired challenge and an unknown nonce', async () => {
      const { did, privateKey } = didKeyPair();
      const c = await challenge(app.url);
      await app.container.db.query(`update did_challenges set expires_at = now() - interval '1 second' where nonce = $1`, [c.nonce]);
      expect((await verify({ did, nonce: c.nonce, signature: signB64(privateKey, c.message) })).status).toBe(400);
      const fake = 'x'.repeat(32);
      expect((await verify({ did, nonce: fake, signature: signB64(privateKey, `markless sign-in ${fake}`) })).status).toBe(400);
    });

    it('422s a DID that is not a did:key, naming the field', async () => {
      const c = await challenge(app.url);
      const r = await verify({ did: 'did:web:example.org', nonce: c.nonce, signature: 'a'.repeat(88) });
      expect(r.status).toBe(422);
      expect(r.json.detail).toBe('did');
      const huge = await verify({ did: `did:key:z${'6'.repeat(100_000)}`, nonce: c.nonce, signature: 'a'.repeat(88) });
      expect(huge.status).toBe(422);
      expect(huge.json.detail).toBe('did');
    });

    it('still signs a key in when someone signed up its derived username first', async () => {
      const { did, privateKey } = didKeyPair();
      const squatted = `did_${sha256(did).slice(0, 16)}`;
      expect((await post('/api/signup', { username: squatted, password: GOOD_PW })).status).toBe(200);
      const c = await challenge(app.url);
      const r = await verify({ did, nonce: c.nonce, signature: signB64(privateKey, c.message) });
      expect(r.status).toBe(200);
      expect(r.json.account.did).toBe(did);
      expect(r.json.account.username).not.toBe(squatted);
    });
  });
});

describe('DID challenge rate limit and closed sign-up (embedded, DID_CHALLENGE_PER_MIN=3, SIGNUP_OPEN=false)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', env: { DID_CHALLENGE_PER_MIN: '3', SIGNUP_OPEN: 'false' } });
  });

  it('refuses sign-up with 403 when SIGNUP_OPEN=false', async () => {
    const r = await api(app.url, 'POST', '/api/signup', { json: { username: uniqueName('closed_'), password: GOOD_PW } });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ ok: false, code: 'signup_closed', error: messages.signup_closed.vi });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('429s the fourth challenge in a minute with Retry-After in whole seconds', async () => {
    for (let i = 0; i < 3; i++) expect((await api(app.url, 'GET', '/api/auth/did/challenge')).status).toBe(200);
    const r = await api(app.url, 'GET', '/api/auth/did/challenge', { headers: { 'Accept-Language': 'en' } });
    expect(r.status).toBe(429);
    const retry = r.headers.get('retry-after') ?? '';
    expect(retry).toMatch(/^\d+$/);
    expect(Number(retry)).toBeGreaterThanOrEqual(1);
    expect(Number(retry)).toBeLessThanOrEqual(60);
    expect(r.json).toMatchObject({ ok: false, code: 'rate_limited' });
    expect(r.json.error).toContain(retry);
    // The budget is the challenge route's own: other routes from the same address still answer.
    expect((await api(app.url, 'GET', '/api/health')).status).toBe(200);
  });
});

describe('accounts (distributed)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode: 'distributed' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('runs the curl flow on PostgreSQL: signup → login → me → logout → me 401, default lifetime 43200 s', async () => {
    const username = uniqueName('dist_');
    const s = await api(app.url, 'POST', '/api/signup', { json: { username, password: GOOD_PW } });
    expect(s.status).toBe(200);
    expect(s.json.expires_in).toBe(43_200);
    const weak = await api(app.url, 'POST', '/api/signup', { json: { username: uniqueName('weak_'), password: 'password123' } });
    expect(weak.status).toBe(400);
    expect(weak.json.code).toBe('password_common');
    const dup = await api(app.url, 'POST', '/api/signup', { json: { username, password: GOOD_PW } });
    expect(dup.status).toBe(400);
    const l = await api(app.url, 'POST', '/api/login', { json: { username, password: GOOD_PW } });
    expect(l.status).toBe(200);
    const token = l.json.token as string;
    expect((await api(app.url, 'GET', '/api/me', { token })).json.account.username).toBe(username);
    expect((await api(app.url, 'POST', '/api/logout', { token })).status).toBe(200);
    expect((await api(app.url, 'GET', '/api/me', { token })).status).toBe(401);
    const stored = await app.container.db.query('select 1 from tokens where hash = $1 and revoked_at is not null', [sha256(token)]);
    expect(stored.rows).toHaveLength(1);
  });
});
