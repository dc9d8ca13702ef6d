/**
 * Issue 21: progress streams (SSE) per batch were unlimited (200 accepted, about 0.6 core of
 * polling in embedded mode). Now SSE_MAX_PER_BATCH and SSE_MAX_PER_ACCOUNT cap the open streams;
 * extra ones get 429 with Retry-After, and a closed stream frees its slot.
 * The batch queue is not served here, so the batches stay running and their streams stay open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { batchForm, surface } from '../support/fruit-batch.js';

describe('fruit batch progress streams: caps per batch and per account (embedded)', () => {
  let app: TestApp;
  let owner: { token: string; id: string };
  let stranger: { token: string; id: string };
  let a: string;
  let b: string;
  const open: AbortController[] = [];

  beforeAll(async () => {
    app = await startTestApp({ env: { WORKER_QUEUES: 'identify,enrol', SSE_MAX_PER_BATCH: '2', SSE_MAX_PER_ACCOUNT: '3' } });
    owner = await signup(app.url, 'owner');
    stranger = await signup(app.url, 'stranger');
    const photo = await surface(901);
    for (const name of ['a', 'b']) {
      const r = await api(app.url, 'POST', '/api/fruit/batch', {
        token: owner.token,
        body: batchForm([{ name: `${name}.jpg`, bytes: photo }]),
      });
      expect(r.status, r.text).toBe(202);
      if (name === 'a') a = r.json.batch_id;
      else b = r.json.batch_id;
    }
  }, 180_000);
  afterAll(async () => {
    for (const c of open) c.abort();
    await app?.stop();
  });

  /** Open a stream; on 200 wait for its first frame (the slot is held) and keep it open. */
  async function stream(batch: string, token = owner.token) {
    const ctl = new AbortController();
    const res = await fetch(`${app.url}/api/fruit/batch/${batch}/events`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'test-request-id', 'accept-language': 'en' },
      signal: ctl.signal,
    });
    if (res.status !== 200) {
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text), retry: res.headers.get('retry-after'), ctl };
    }
    const first = await res.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('event: progress');
    open.push(ctl);
    return { status: 200, text: '', json: null, retry: null, ctl };
  }

  /** Readiness, not a fixed sleep: retry until a stream on `batch` is accepted again. */
  async function untilAccepted(batch: string) {
    const end = Date.now() + 10_000;
    for (;;) {
      const s = await stream(batch);
      if (s.status === 200) return s;
      expect(s.status).toBe(429);
      if (Date.now() > end) throw new Error('a closed stream never freed its slot');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('refuses a third stream on one batch and a fourth on the account with 429 + Retry-After; a closed stream frees its slot', async () => {
    const s1 = await stream(a);
    const s2 = await stream(a);
    expect([s1.status, s2.status]).toEqual([200, 200]);
    const s3 = await stream(a);
    expect(s3.status).toBe(429);
    expect(s3.json.code).toBe('stream_limit_batch');
    expect(s3.json.error).toBe('This batch already has 2 progress streams open. Close one, or try again in 5 seconds.');
    expect(Number(s3.retry)).toBeGreaterThanOrEqual(1);

    const s4 = await stream(b);
    expect(s4.status).toBe(200);
    const s5 = await stream(b);
    expect(s5.status).toBe(429);
    expect(s5.json.code).toBe('stream_limit_account');
    expect(s5.json.error).toMatch(/^Your account already has 3 progress streams open\. .*\.$/);

    // Another account's batch stays the plain 404, the same as a batch that does not exist, whatever the caps.
    const theirs = await api(app.url, 'GET', `/api/fruit/batch/${a}/events`, { token: stranger.token });
    const missing = await api(app.url, 'GET', '/api/fruit/batch/00000000-0000-4000-8000-000000000000/events', { token: stranger.token });
    expect([theirs.status, missing.status]).toEqual([404, 404]);
    expect(theirs.text).toBe(missing.text);

    // Closing one stream on `a` frees a slot on `a` and on the account.
    s1.ctl.abort();
    const again = await untilAccepted(a);
    expect(again.status).toBe(200);
    // Close everything: every slot comes back (the caps are reached again, not earlier).
    for (const c of open.splice(0)) c.abort();
    await untilAccepted(a);
    expect((await stream(a)).status).toBe(200);
    expect((await stream(b)).status).toBe(200);
    const over = await stream(b);
    expect(over.status).toBe(429);
    expect(over.json.code).toBe('stream_limit_account');
  }, 60_000);

  it('a finished stream frees its slot by itself', async () => {
    for (const c of open.splice(0)) c.abort();
    // A deleted batch ends its streams; their slots come back without the client closing anything.
    const photo = await surface(902);
    const r = await api(app.url, 'POST', '/api/fruit/batch', { token: owner.token, body: batchForm([{ name: 'c.jpg', bytes: photo }]) });
    const c = r.json.batch_id as string;
    await untilAccepted(c);
    expect((await stream(c)).status).toBe(200);
    expect((await stream(c)).status).toBe(429);
    expect((await api(app.url, 'DELETE', `/api/fruit/batch/${c}`, { token: owner.token })).status).toBe(200);
    // The streams end on their own (the batch is gone); the account's slots are free again.
    // Two on `a` and one on `b` make the account's 3: only possible once both of c's slots came back.
    await untilAccepted(a);
    await untilAccepted(a);
    await untilAccepted(b);
    expect((await stream(b)).json.code).toBe('stream_limit_account');
  }, 60_000);
});
