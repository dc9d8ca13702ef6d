import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION } from '../../workers/src/vision/calibrate.js';
import { refitFromLabels } from '../../workers/src/recognition/calibration.js';
import { createHandlers } from '../../workers/src/handlers/index.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/** A multipart POST with a token; `api()` sends FormData as it is. */
const post = (app: TestApp, path: string, token: string, form: FormData) => api(app.url, 'POST', path, { token, body: form });

describe('identify_verdict labels re-fit the calibration (embedded)', () => {
  let app: TestApp;
  let owner: { token: string };
  let other: { token: string };
  const trees: string[] = [];
  const queries: string[] = [];
  let dataDir: string;
  /** The threshold an answer reported before any re-fit: the kind's own. */
  let kindThreshold: number;

  beforeAll(async () => {
    // Our own folder, so the data survives the restart in the last test.
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-calibration-'));
    app = await startTestApp({ dataDir });
    owner = await signup(app.url);
    other = await signup(app.url);
    for (const seed of [61, 62, 63, 64]) {
      const surface = await textureImage(seed, 512);
      const enrol = await Promise.all([1, 2].map((k) => otherView(surface, seed * 10 + k)));
      trees.push((await post(app, '/api/enroll', owner.token, photoForm(enrol))).json.tree_id);
      const q = await post(app, '/api/identify', owner.token, photoForm([await otherView(surface, seed * 10 + 7)]));
      queries.push(q.json.query_id);
      kindThreshold = q.json.calibration.match_threshold;
    }
    const unseen = await post(app, '/api/identify', owner.token, photoForm([await otherView(await textureImage(65, 512), 3)]));
    queries.push(unseen.json.query_id);
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores one label per query, keeping a corrected id only when it is the caller’s', async () => {
    for (const q of queries.slice(0, 4)) {
      const r = await api(app.url, 'POST', '/api/identify_verdict', { token: owner.token, form: { query_id: q, verdict: 'correct' } });
      expect(r.status).toBe(200);
    }
    const strangerTree = (
      await post(app, '/api/enroll', other.token, photoForm([await textureImage(66, 384), await textureImage(67, 384)]))
    ).json.tree_id;
    const dropped = await api(app.url, 'POST', '/api/identify_verdict', {
      token: owner.token,
      form: { query_id: queries[4]!, verdict: 'other', correct_id: strangerTree },
    });
    expect(dropped.json).toEqual({ ok: true, correct_id: null });
    const relabel = await api(app.url, 'POST', '/api/identify_verdict', {
      token: owner.token,
      form: { query_id: queries[4]!, verdict: 'unknown_ok' },
    });
    expect(relabel.status).toBe(200);
    const rows = await app.container.db.query<{ verdict: string; n: number }>(
      'select verdict, count(*)::int as n from identify_verdicts group by 1 order by 1',
    );
    expect(rows.rows).toEqual([
      { verdict: 'correct', n: 4 },
      { verdict: 'unknown_ok', n: 1 },
    ]);
  });

  it('refuses a label for someone else’s query with the same 404 as a missing one', async () => {
    const foreign = await api(app.url, 'POST', '/api/identify_verdict', {
      token: other.token,
      form: { query_id: queries[0]!, verdict: 'wrong' },
    });
    const missing = await api(app.url, 'POST', '/api/identify_verdict', {
      token: other.token,
      form: { query_id: '00000000-0000-4000-8000-000000000000', verdict: 'wrong' },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    const bad = await api(app.url, 'POST', '/api/identify_verdict', {
      token: owner.token,
      form: { query_id: queries[0]!, verdict: 'maybe' },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.detail).toBe('verdict');
  });

  it('re-fits from the labels, reports separation before and after, and the next start uses it', async () => {
    const report = await refitFromLabels(app.container.db, 'tree', DEFAULT_CALIBRATION, true);
    expect(report.labels).toBe(5);
    expect(report.positives).toBe(4);
    expect(report.n).toBeGreaterThan(report.positives);
    expect(report.aucBefore).toBeGreaterThanOrEqual(0);
    expect(report.aucAfter).toBeLessThanOrEqual(1);
    expect(report.params.source).toMatch(/^fit:identify_verdict/);
    const stored = await app.container.db.query<{ kind: string }>('select kind from calibrations');
    expect(stored.rows).toEqual([{ kind: 'tree' }]);
    const fitted = Math.round(report.params.matchThreshold * 1e4) / 1e4;
    expect(fitted).not.toBe(kindThreshold);
    await app.stop();
    app = await startTestApp({ dataDir });
    const probe = async (on: TestApp, token: string) =>
      (await post(on, '/api/identify', token, photoForm([await otherView(await textureImage(61, 512), 617)]))).json.calibration;
    expect(await probe(app, owner.token)).toMatchObject({ source: 'kind_default', match_threshold: fitted });
    // Start this database's job handlers here too, in the process that also runs the next app's
    // worker: the engine is loaded once per process, and this database's re-fit must stay on it.
    await createHandlers(app.container);
    const fresh = await startTestApp({ mode: 'distributed' });
    try {
      const stranger = await signup(fresh.url);
      const enrolled = await post(
        fresh,
        '/api/enroll',
        stranger.token,
        photoForm([await textureImage(61, 512), await textureImage(62, 512)]),
      );
      expect(enrolled.status).toBe(200);
      expect(await probe(fresh, stranger.token)).toMatchObject({ source: 'kind_default', match_threshold: kindThreshold });
    } finally {
      await fresh.stop();
    }
  });
});
