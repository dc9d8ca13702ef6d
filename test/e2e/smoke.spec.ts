import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';

describe.each<Mode>(['embedded', 'distributed'])('service in %s mode', (mode) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('answers health with the contract version and its mode', async () => {
    const r = await api(app.url, 'GET', '/api/health');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, version: '2026.07.01', mode });
  });

  it('signs up, reads me, logs out, then me is 401', async () => {
    const { token, username } = await signup(app.url);
    const me = await api(app.url, 'GET', '/api/me', { token });
    expect(me.json.account.username).toBe(username);
    expect((await api(app.url, 'POST', '/api/logout', { token })).status).toBe(200);
    expect((await api(app.url, 'GET', '/api/me', { token })).status).toBe(401);
  });
});
