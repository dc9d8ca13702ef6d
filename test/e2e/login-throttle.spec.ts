/**
 * Issue 21: five wrong passwords from a stranger must not lock the owner out. The throttle is per
 * address and name (strict), per address (spraying) and per name (slows only addresses that
 * have failed). Addresses come from X-Forwarded-For with TRUST_PROXY, as behind a real proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../shared/src/domain/messages.js';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { uniqueName } from '../support/postgres.js';

const PW = 'Bark-and-peel-42';
const ENV = { TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '1', LOGIN_SOURCE_FAILURES: '8', LOGIN_ACCOUNT_FAILURES: '6' };

describe.each<Mode>(['embedded', 'distributed'])('login throttle without lock-out (%s)', (mode) => {
  let app: TestApp;
  const login = (username: string, password: string, from: string) =>
    api(app.url, 'POST', '/api/login', { json: { username, password }, headers: { 'x-forwarded-for': from, 'accept-language': 'en' } });

  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode, env: ENV });
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('a stranger’s five failures throttle the stranger’s address (429 + Retry-After), not the owner at another', async () => {
    const owner = await signup(app.url, 'owner');
    const stranger = '203.0.113.5';
    for (let i = 0; i < 4; i++) expect((await login(owner.username, `Guess-number-${i}x`, stranger)).status).toBe(401);
    const fifth = await login(owner.username, 'Guess-number-4x', stranger);
    expect(fifth.status).toBe(429);
    expect(fifth.json).toMatchObject({
      code: 'login_locked',
      error: messages.login_locked.en.replace('{retry_after}', fifth.headers.get('retry-after')!),
    });
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Even the right password from the stranger's address waits.
    const again = await login(owner.username, PW, stranger);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The owner, from home, signs in at once, and so does the owner again after that.
    expect((await login(owner.username, PW, '198.51.100.9')).status).toBe(200);
    expect((await login(owner.username, PW, '198.51.100.9')).status).toBe(200);
  });

  it('many addresses guessing one name slow only the addresses that failed; a clean address still signs in', async () => {
    const owner = await signup(app.url, 'target');
    // Six failures from six addresses reach LOGIN_ACCOUNT_FAILURES=6: the name is under back-off now.
    for (let i = 1; i <= 6; i++) expect((await login(owner.username, `Guess-number-${i}y`, `192.0.2.${i}`)).status).toBe(401);
    const slowed = await login(owner.username, PW, '192.0.2.1');
    expect(slowed.status).toBe(429);
    expect(slowed.json.code).toBe('login_locked');
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await login(owner.username, PW, '198.51.100.44')).status).toBe(200);
  });

  it('one address spraying many names is locked for every name (login_throttled), others are not', async () => {
    const sprayer = '203.0.113.99';
    const answers: number[] = [];
    for (let i = 0; i < 8; i++) answers.push((await login(uniqueName('spray_'), `Guess-number-${i}z`, sprayer)).status);
    expect(answers).toEqual([401, 401, 401, 401, 401, 401, 401, 429]);
    const victim = await signup(app.url, 'sprayed');
    const r = await login(victim.username, PW, sprayer);
    expect(r.status).toBe(429);
    expect(r.json.code).toBe('login_throttled');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await login(victim.username, PW, '198.51.100.45')).status).toBe(200);
  });
});
