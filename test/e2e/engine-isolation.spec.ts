import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/process.js';
import { photoForm, textureImage } from '../support/images.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every repository module `entry` reaches through static and literal dynamic imports. */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [path.resolve(ROOT, entry)];
  const spec =
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"](\.[^'"]+)['"]|(?:^|[\s;(=])import\s*\(\s*['"](\.[^'"]+)['"]\s*\)|^import\s+['"](\.[^'"]+)['"]/gm;
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(spec)) {
      const rel = m[1] ?? m[2] ?? m[3]!;
      const abs = path.resolve(path.dirname(file), rel);
      const ts = abs.replace(/\.js$/, '.ts');
      todo.push(existsSync(ts) ? ts : abs);
    }
  }
  return seen;
}

describe('the API process and the worker code', () => {
  it('api/src/main.ts reaches no module under workers/ (the job host thread is started from its file)', () => {
    const graph = [...importGraph('api/src/main.ts')].map((f) => path.relative(ROOT, f));
    // The walk does find the API's own modules and the host launcher, so an empty answer is not a pass.
    expect(graph.length).toBeGreaterThan(100);
    expect(graph).toContain('shared/src/jobs/thread-host.ts');
    expect(graph).toContain('api/src/routes/models.route.ts');
    expect(graph.filter((f) => f.startsWith('workers/'))).toEqual([]);
  });

  it('the walk does see worker modules where they are imported (the distributed worker)', () => {
    const graph = [...importGraph('workers/src/main.ts')].map((f) => path.relative(ROOT, f));
    expect(graph).toContain('workers/src/handlers/index.ts');
    expect(graph).toContain('workers/src/engine-pool/index.ts');
  });

  it('the worker and the job host reach no module under api/: what both sides need lives in shared/', () => {
    for (const entry of ['workers/src/main.ts', 'workers/src/host/host-thread.ts']) {
      const graph = [...importGraph(entry)].map((f) => path.relative(ROOT, f));
      expect(graph, entry).toContain('workers/src/handlers/survey.handler.ts');
      expect(graph, entry).toContain('shared/src/population/population.service.ts');
      expect(
        graph.filter((f) => f.startsWith('api/')),
        entry,
      ).toEqual([]);
    }
  });
});

describe('a slow job does not hold the API (embedded)', () => {
  let app: TestApp;
  let dir: string;
  let release: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-hold-'));
    release = path.join(dir, 'release');
    // Every job spins its thread without yielding until `release` exists; JOB_WAIT_MS=0 answers 202 at once.
    app = await startTestApp({ engine: 'deterministic', env: { MARKLESS_TEST_HOLD_JOBS_UNTIL: release, JOB_WAIT_MS: '0' } });
  }, 120_000);
  afterAll(async () => {
    if (release) await writeFile(release, '').catch(() => {});
    await app?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers /api/health and other requests while a job spins, then the job finishes once released', async () => {
    const u = await signup(app.url, 'hold');
    const r = await api(app.url, 'POST', '/api/identify', { token: u.token, body: photoForm([await textureImage(77, 320)]) });
    expect(r.status).toBe(202);
    const id = r.json.job_id as string;
    await until(async () => (await api(app.url, 'GET', `/api/jobs/${id}`, { token: u.token })).json?.status === 'active', 60_000);
    // The job is running and cannot yield: were it on the API's event loop, nothing below would answer.
    for (let i = 0; i < 5; i++) {
      const h = await api(app.url, 'GET', '/api/health');
      expect(h.status).toBe(200);
      expect(h.json.ok).toBe(true);
    }
    expect((await api(app.url, 'GET', '/api/me', { token: u.token })).status).toBe(200);
    expect((await api(app.url, 'GET', `/api/jobs/${id}`, { token: u.token })).json.status).toBe('active');
    await writeFile(release, '');
    const done = await until(async () => {
      const j = (await api(app.url, 'GET', `/api/jobs/${id}`, { token: u.token })).json;
      return j?.status === 'completed' || j?.status === 'failed' ? j : null;
    }, 120_000);
    expect(done.status).toBe('completed');
    expect(['match', 'uncertain', 'no_match']).toContain(done.result.verdict);
  }, 240_000);
});

describe('a job host thread that dies (embedded)', () => {
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-crash-'));
    app = await startTestApp({ engine: 'deterministic', env: { MARKLESS_TEST_CRASH_HOST_ONCE: path.join(dir, 'crashed') } });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is started again, and the job it held is retried there and answered', async () => {
    const u = await signup(app.url, 'crash');
    const r = await api(app.url, 'POST', '/api/identify', { token: u.token, body: photoForm([await textureImage(78, 320)]) });
    // The first host died under this job (the hook left its file); the second one answered it.
    expect(existsSync(path.join(dir, 'crashed'))).toBe(true);
    expect(r.status, r.text).toBe(200);
    expect(['match', 'uncertain', 'no_match']).toContain(r.json.verdict);
    expect((await api(app.url, 'GET', '/api/health')).status).toBe(200);
  }, 240_000);
});
