import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';

const MB = 1_000_000;
const BOUNDARY = 'markless-test-boundary';

/**
 * Stream a multipart upload of `totalBytes` to /api/enroll in 64 KiB chunks without a
 * Content-Length, and report how many bytes had been handed to the socket when the answer came.
 */
function streamUpload(
  url: string,
  token: string,
  totalBytes: number,
  route = '/api/enroll',
  part = { field: 'files', filename: 'big.jpg', type: 'image/jpeg' },
): Promise<{ status: number; body: string; sentWhenAnswered: number }> {
  const target = new URL(route, url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(target, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'transfer-encoding': 'chunked',
      },
    });
    req.on('response', (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentWhenAnswered }));
    });
    // Once refused, the server closes the connection: our later writes fail, as intended.
    req.on('error', (e) => !answered && reject(e));
    req.write(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.field}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 7);
    // Pace the upload like a phone on a fast link (about 50 MB/s), so loopback socket buffers do not
    // swallow megabytes ahead of the server and `sent` tracks what the server could have read.
    const pump = async () => {
      while (!answered && sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        if (sent % (1024 * 1024) === 0) await new Promise((r) => setTimeout(r, 20));
      }
      if (!answered) req.end(`\r\n--${BOUNDARY}--\r\n`);
    };
    void pump();
  });
}

describe.each<Mode>(['embedded', 'distributed'])('errors and limits (%s)', (mode) => {
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode, env: { RATE_LIMIT_PER_MIN: '40' } });
    token = (await signup(app.url)).token;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('cuts a streamed 25 MB upload off with 413 long before it is all sent', async () => {
    const r = await streamUpload(app.url, token, 25 * MB);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({ ok: false, code: 'payload_too_large' });
    // The 20 MB per-file limit trips while streaming; the remaining megabytes are never read.
    expect(r.sentWhenAnswered).toBeGreaterThan(19 * MB);
    expect(r.sentWhenAnswered).toBeLessThan(23 * MB);
    const blobs = await app.container.db.query('select count(*)::int as n from blobs');
    expect(blobs.rows[0]).toEqual({ n: 0 });
  });

  it('answers 413 to a 21 MB photo on identify and an 81 MB video, and accepts what is under the limits', async () => {
    const photo = await streamUpload(app.url, token, 21 * MB, '/api/identify');
    expect(photo.status).toBe(413);
    const video = await streamUpload(app.url, token, 81 * MB, '/api/identify/video', {
      field: 'file',
      filename: 'big.mp4',
      type: 'video/mp4',
    });
    expect(video.status).toBe(413);
    expect(JSON.parse(video.body)).toMatchObject({ code: 'payload_too_large' });
    // 21 MB of video is fine for the body layer: it gets as far as the content check (not a real video).
    const small = await streamUpload(app.url, token, 21 * MB, '/api/identify/video', {
      field: 'file',
      filename: 'ok.mp4',
      type: 'video/mp4',
    });
    expect(small.status).toBe(422);
    expect(JSON.parse(small.body)).toMatchObject({ code: 'file_wrong_type' });
  });

  it('refuses a declared 70 MB body before reading it', async () => {
    const res = await fetch(`${app.url}/api/enroll`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(70 * MB),
      },
      body: 'x',
      duplex: 'half',
    } as RequestInit).catch((e: Error) => e);
    // Either the 413 arrives or the socket is closed right after it; never a 2xx.
    if (res instanceof Response) expect(res.status).toBe(413);
  });

  it('answers 422 naming the field for a wrong type, in Vietnamese then English', async () => {
    const vi = await api(app.url, 'POST', '/api/login', { json: { username: 'someone', password: 12 } });
    expect(vi.status).toBe(422);
    expect(vi.json).toMatchObject({ ok: false, detail: 'password', code: 'validation_failed' });
    expect(vi.json.error).toMatch(/Trường "password"/);
    const en = await api(app.url, 'POST', '/api/login', { json: { username: 'someone' }, headers: { 'accept-language': 'en' } });
    expect(en.json.error).toMatch(/^Field "password"/);
  });

  it('answers 422 for a non-image upload and keeps no blob', async () => {
    const form = new FormData();
    form.append('files', new Blob([Buffer.from('this is plain text, not a photo')], { type: 'image/jpeg' }), 'fake.jpg');
    const r = await fetch(`${app.url}/api/enroll`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(r.status).toBe(422);
    expect(await r.json()).toMatchObject({ code: 'file_wrong_type', detail: 'files' });
    const empty = new FormData();
    empty.append('files', new Blob([]), 'empty.jpg');
    const z = await fetch(`${app.url}/api/enroll`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: empty });
    expect(z.status).toBe(422);
    expect(await z.json()).toMatchObject({ code: 'file_empty' });
    const blobs = await app.container.db.query('select count(*)::int as n from blobs');
    expect(blobs.rows[0]).toEqual({ n: 0 });
  });

  it('asks for a token before reading an upload', async () => {
    const r = await api(app.url, 'POST', '/api/enroll', { body: 'x', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(r.status).toBe(401);
  });

  it('answers unknown routes with a 404 error body', async () => {
    const r = await api(app.url, 'GET', '/api/does-not-exist');
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ ok: false, code: 'route_not_found' });
  });

  it('answers 422 on malformed JSON without a stack trace', async () => {
    const r = await api(app.url, 'POST', '/api/login', { body: '{"username":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(422);
    expect(r.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('rate-limits with 429 and a Retry-After in whole seconds', async () => {
    let limited: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const r = await api(app.url, 'GET', '/api/health');
      if (r.status === 429) limited = r;
    }
    expect(limited?.status).toBe(429);
    const retry = limited!.headers.get('retry-after');
    expect(retry).toMatch(/^\d+$/);
    expect(Number(retry)).toBeGreaterThan(0);
    expect(Number(retry)).toBeLessThanOrEqual(60);
    expect(limited!.json).toMatchObject({ ok: false, code: 'rate_limited' });
    // The app's own files are not metered: with the budget spent, a reload still gets every
    // module (each one more than the whole budget), while calls are still refused.
    for (let i = 0; i < 45; i++) {
      for (const path of ['/app/main.js', '/app/app.css', '/sw.js', '/manifest.webmanifest']) {
        const file = await fetch(`${app.url}${path}`);
        expect(file.status, path).toBe(200);
        await file.arrayBuffer();
      }
    }
    expect((await api(app.url, 'GET', '/api/health')).status).toBe(429);
    // A name that is not one of the app's files is metered like any other request.
    expect((await fetch(`${app.url}/app/..%2Fpackage.json`)).status).toBe(429);
  });
});
