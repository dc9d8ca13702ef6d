/**
 * Single requests that used to end the process. Each mode's API runs as a real child process,
 * started once; after every attack the same process (same pid, never exited) must still answer
 * /api/health.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, type Mode } from '../support/app.js';
import { startChildApp, type ChildApp } from '../support/child-app.js';

/** Send a chunked body that never ends on its own; stop when the server answers and closes. */
function floodChunked(url: string, path: string, token?: string): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url + path);
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
    let sent = 0;
    let status = 0;
    let body = '';
    let closed = false;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    req.write('{"username":"');
    const pump = () => {
      // Keep sending until the server has answered and closed the socket (the lingering close).
      while (!closed && sent < 8_000_000) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!closed) req.end('"}');
    };
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.on('data', (d) => (body += d));
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.on('close', () => {
      closed = true;
      status ? resolve({ status, body, sent }) : reject(new Error('no answer before the socket closed'));
    });
    pump();
  });
}

/** POST raw bytes with exact headers, through node:http (fetch would fix up the framing). */
function rawPost(url: string, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url + path);
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.each<Mode>(['embedded', 'distributed'])('no single request ends the process (%s)', (mode) => {
  let app: ChildApp;
  let token: string;
  let pid: number;
  beforeAll(async () => {
    app = await startChildApp(mode);
    pid = app.child.proc.pid!;
    token = (await signup(app.url, 'crash')).token;
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  /** The same process is alive and answers its health check. */
  async function stillUp() {
    expect(app.alive(), app.child.output()).toBe(true);
    expect(app.child.proc.pid).toBe(pid);
    const h = await api(app.url, 'GET', '/api/health');
    expect(h.status).toBe(200);
    expect(app.alive()).toBe(true);
  }

  it('a chunked JSON body over 1 MB on public signup and login: 413, and the process outlives the lingering close', async () => {
    for (const path of ['/api/signup', '/api/login']) {
      const r = await floodChunked(app.url, path);
      expect(r.status, path).toBe(413);
      expect(JSON.parse(r.body)).toMatchObject({ ok: false, code: 'payload_too_large' });
      // The close came after the grace timer fired (the old crash point), so a crash would show now.
      await stillUp();
    }
    const authed = await floodChunked(app.url, '/api/feedback', token);
    expect(authed.status).toBe(413);
    await stillUp();
  });

  it('a multipart part cut off before its closing boundary: 422 multipart_truncated', async () => {
    const body = Buffer.concat([
      Buffer.from('--x\r\nContent-Disposition: form-data; name="files"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'),
      Buffer.from([0xff, 0xd8, 0xff]),
    ]);
    for (const path of ['/api/enroll', '/api/identify', '/api/scan']) {
      const r = await rawPost(app.url, path, { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=x' }, body);
      expect(r.status, path).toBe(422);
      expect(r.json).toMatchObject({ ok: false, code: 'multipart_truncated', detail: 'body' });
      await stillUp();
    }
  });

  it('an upload route sent JSON, text/plain, no content type or a multipart type without boundary: 415 naming multipart/form-data', async () => {
    const cases: Array<Record<string, string>> = [
      { 'content-type': 'application/json' },
      { 'content-type': 'text/plain' },
      {},
      { 'content-type': 'multipart/form-data' },
    ];
    for (const headers of cases) {
      const r = await rawPost(
        app.url,
        '/api/enroll',
        { authorization: `Bearer ${token}`, ...headers },
        Buffer.from('{"species":"durian"}'),
      );
      expect(r.status, JSON.stringify(headers)).toBe(415);
      expect(r.json).toMatchObject({ ok: false, code: 'content_type_unsupported', detail: 'content-type' });
      expect(r.json.error).toContain('multipart/form-data');
    }
    await stillUp();
  });

  it('NUL bytes in path ids and text fields: 404 or 422, and /t/ still answers its HTML page', async () => {
    const missing = await api(app.url, 'GET', '/api/jobs/no-such-job', { token });
    for (const path of [
      '/api/resolve/%00',
      '/api/jobs/%00',
      '/api/farm/%00/boundary',
      '/api/tree/%00/timeline',
      '/api/farm/a%00b/timeline',
    ]) {
      const r = await api(app.url, 'GET', path, { token });
      expect(r.status, path).toBe(404);
    }
    expect((await api(app.url, 'GET', '/api/jobs/%00', { token })).text).toBe(missing.text);
    const page = await api(app.url, 'GET', '/t/%00');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toMatch(/<html/i);
    const put = await api(app.url, 'PUT', '/api/farm/%00/boundary', { token, json: { boundary: { type: 'Polygon', coordinates: [] } } });
    expect(put.status).toBe(404);
    const grant = await api(app.url, 'POST', '/api/grant', { token, json: { grantee: 'bob\u0000' } });
    expect(grant.status).toBe(422);
    expect(grant.json).toMatchObject({ code: 'text_nul_byte', detail: 'grantee' });
    const note = await api(app.url, 'POST', '/api/feedback', { token, form: { note: 'a\u0000b' } });
    expect(note.status).toBe(422);
    expect(note.json).toMatchObject({ code: 'text_nul_byte', detail: 'note' });
    const q = await api(app.url, 'GET', '/api/trees?farm_id=a%00b', { token });
    expect(q.status).toBe(422);
    await stillUp();
  });

  it('JSON nested 5000 deep on POST .../event: 422 json_too_deep', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const r = await api(app.url, 'POST', '/api/tree/00000000-0000-4000-8000-000000000000/event', {
      token,
      body: `{"a":${deep}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ ok: false, code: 'json_too_deep', detail: 'body' });
    await stillUp();
  });
});
