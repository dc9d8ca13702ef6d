import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { signupAdmin } from '../support/admin.js';
import { photoForm, textureImage } from '../support/images.js';
import { uniqueName } from '../support/postgres.js';
import { until } from '../support/process.js';

const photos = (seed: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => textureImage(seed * 100 + i, 384)));

async function post(url: string, path: string, token: string, files: Buffer[], headers: Record<string, string> = {}) {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...headers },
    body: photoForm(files, { species: 'durian', farm_id: 'farm-1' }),
  });
  return { status: r.status, headers: r.headers, json: (await r.json()) as any };
}

/** One Prometheus sample's value, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('operations: metrics, queue steering, quotas (embedded)', () => {
  let app: TestApp;
  let admin: { token: string; id: string };
  let user: { token: string; id: string };
  const adminName = uniqueName('ops_admin_');

  beforeAll(async () => {
    app = await startTestApp({ env: { JOB_WAIT_MS: '20000', ACCOUNT_QUEUED_QUOTA: '3' } });
    admin = await signupAdmin(app, adminName);
    user = await signup(app.url, 'ops');
  });
  afterAll(async () => app?.stop());

  it('serves /metrics to administrators only, with the named series after real traffic', async () => {
    const enrolled = await post(app.url, '/api/enroll', user.token, await photos(1, 3));
    expect(enrolled.status).toBe(200);
    const identified = await post(app.url, '/api/identify', user.token, [(await photos(1, 1))[0]!]);
    expect(identified.status).toBe(200);

    expect((await api(app.url, 'GET', '/metrics')).status).toBe(401);
    expect((await api(app.url, 'GET', '/metrics', { token: user.token })).status).toBe(403);
    const m = await api(app.url, 'GET', '/metrics', { token: admin.token });
    expect(m.status).toBe(200);
    expect(m.headers.get('content-type')).toMatch(/^text\/plain/);
    const t = m.text;
    expect(sample(t, 'markless_http_requests_total', { method: 'POST', route: '/api/identify', status: '200' })).toBe(1);
    expect(sample(t, 'markless_http_request_duration_seconds_count', { route: '/api/enroll' })).toBe(1);
    expect(sample(t, 'markless_job_wait_seconds_count', { queue: 'identify', job: 'identify' })).toBe(1);
    expect(sample(t, 'markless_job_run_seconds_count', { queue: 'enrol', job: 'enroll', outcome: 'completed' })).toBe(1);
    expect(t).toContain('# TYPE markless_jobs_failed_total counter');
    expect(sample(t, 'markless_queue_depth', { queue: 'video', state: 'waiting' })).toBe(0);
    expect(sample(t, 'markless_onnx_provider_info', { provider: 'cpu' })).toBe(1);
    // Four photos embedded, in however many engine batches they were grouped.
    expect(sample(t, 'markless_embed_batch_size_sum')).toBeGreaterThanOrEqual(4);
    // Time per pipeline stage, from the engine pool's threads and from the job host (issue 22).
    for (const stage of ['decode', 'embed', 'local', 'search', 'verify', 'database', 'blobs']) {
      expect(sample(t, 'markless_stage_seconds_count', { stage }), stage).toBeGreaterThan(0);
    }
    expect(t).toContain('# TYPE markless_engine_waiting gauge');
    expect(sample(t, 'markless_index_size', { owner: user.id })).toBe(3);
    expect(sample(t, 'markless_process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
  });

  it("reports the workers' model and provider and each dependency in /api/health", async () => {
    const h = await api(app.url, 'GET', '/api/health');
    expect(h.status).toBe(200);
    expect(h.json.recognition).toMatchObject({ provider: 'cpu', model: { name: expect.any(String), version: expect.any(String) } });
    expect(h.json.dependencies).toEqual({ database: 'up', blobs: 'up' });
  });

  it('lists queues, pauses and resumes identify, 429s past the account quota, and steers concurrency', async () => {
    const list = await api(app.url, 'GET', '/api/admin/queues', { token: admin.token });
    expect(list.status).toBe(200);
    expect(list.json.queues.map((q: any) => q.queue).sort()).toEqual(['anchor', 'batch', 'enrol', 'identify', 'reindex', 'video']);
    expect((await api(app.url, 'GET', '/api/admin/queues', { token: user.token })).status).toBe(403);
    expect((await api(app.url, 'POST', '/api/admin/queues/nope/pause', { token: admin.token })).status).toBe(404);

    expect((await api(app.url, 'POST', '/api/admin/queues/identify/pause', { token: admin.token })).status).toBe(200);
    const query = [(await photos(1, 1))[0]!];
    const reqIds = [1, 2, 3].map(() => uniqueName('req-ops-'));
    // Held by the paused queue: each request waits (JOB_WAIT_MS) for a job that has not started.
    const held = reqIds.map((id) => post(app.url, '/api/identify', user.token, query, { 'x-request-id': id }));
    const identifyQueue = async () => (await app.container.queue.admin.stats()).find((s) => s.queue === 'identify')!;
    await until(async () => (await identifyQueue()).waiting === 3);
    expect((await identifyQueue()).paused).toBe(true);

    const refused = await post(app.url, '/api/identify', user.token, query, { 'accept-language': 'en' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.json).toMatchObject({ ok: false, code: 'queue_quota_exceeded' });
    expect(refused.json.error).toMatch(/already has 3 jobs waiting or running/);
    // Another account is not held back by this one's quota: its job is queued.
    const other = await signup(app.url, 'ops2');
    const otherReq = post(app.url, '/api/identify', other.token, query);
    await until(async () => (await identifyQueue()).waiting === 4);

    // Each job row names the request that enqueued it: worker log lines carry the same id.
    const rows = await app.container.db.query<{ request_id: string }>(
      `select request_id from jobs where name = 'identify' and state = 'waiting'`,
    );
    expect(rows.rows.map((r) => r.request_id)).toEqual(expect.arrayContaining(reqIds));

    expect((await api(app.url, 'POST', '/api/admin/queues/identify/resume', { token: admin.token })).status).toBe(200);
    for (const r of [...(await Promise.all(held)), await otherReq]) expect(r.status).toBe(200);

    const set = await api(app.url, 'PUT', '/api/admin/queues/video/concurrency', { token: admin.token, json: { concurrency: 5 } });
    expect(set.json).toEqual({ ok: true, queue: 'video', concurrency: 5 });
    const after = await api(app.url, 'GET', '/api/admin/queues', { token: admin.token });
    expect(after.json.queues.find((q: any) => q.queue === 'video')).toMatchObject({ concurrency: 5, paused: false });
    expect(
      (await api(app.url, 'PUT', '/api/admin/queues/video/concurrency', { token: admin.token, json: { concurrency: 0 } })).status,
    ).toBe(422);
    expect((await api(app.url, 'POST', '/api/admin/queues/identify/failed/retry', { token: admin.token })).json).toEqual({
      ok: true,
      queue: 'identify',
      count: 0,
    });
    expect((await api(app.url, 'DELETE', '/api/admin/queues/identify/failed', { token: admin.token })).json).toEqual({
      ok: true,
      queue: 'identify',
      count: 0,
    });
  }, 120_000);
});
