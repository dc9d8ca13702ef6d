import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm } from '../support/images.js';
import { until } from '../support/process.js';
import { identifyTreesStory, post, views } from './identify.helpers.js';

identifyTreesStory('embedded');

// Restart stories: the service starts (twice) in beforeAll, where a start may take its readiness
// budget on a loaded machine; the tests then only ask questions of the restarted service.
const START_MS = 240_000;

describe('the index is a cache (embedded)', () => {
  let dataDir: string;
  let app: TestApp;
  let owner: { token: string };
  const trees: string[] = [];
  const probes: Buffer[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-index-'));
    app = await startTestApp({ dataDir });
    owner = await signup(app.url);
    for (const seed of [41, 42, 43]) {
      const v = await views(seed);
      probes.push(v.query);
      trees.push((await post(app, '/api/enroll', owner.token, photoForm(v.enrol))).json.tree_id);
    }
    const before = await post(app, '/api/identify', owner.token, photoForm([probes[1]!]));
    expect(before.json.match.individual_id).toBe(trees[1]);
    await app.stop();
    const indexDir = path.join(dataDir, 'index');
    expect((await readdir(indexDir)).length).toBeGreaterThan(0);
    await rm(indexDir, { recursive: true, force: true });
    app = await startTestApp({ dataDir });
  }, START_MS);
  afterAll(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('rebuilds from the database after its files are deleted, and finds the same trees', async () => {
    for (const [i, probe] of probes.entries()) {
      const r = await post(app, '/api/identify', owner.token, photoForm([probe]));
      expect(r.json.verdict).toBe('match');
      expect(r.json.match.individual_id).toBe(trees[i]);
    }
    expect((await readdir(path.join(dataDir, 'index'))).length).toBeGreaterThan(0);
  });
});

describe('a model version change re-embeds (embedded)', () => {
  let dataDir: string;
  let app: TestApp;
  let owner: { token: string; id: string };
  let tree: string;
  let query: Buffer;
  let current: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-reindex-'));
    app = await startTestApp({ dataDir });
    owner = await signup(app.url);
    const v = await views(51);
    query = v.query;
    tree = (await post(app, '/api/enroll', owner.token, photoForm(v.enrol))).json.tree_id;
    const versions = (await app.container.db.query<{ model_version: string }>('select distinct model_version from descriptors')).rows;
    expect(versions).toHaveLength(1);
    current = versions[0]!.model_version;
    // Pretend the stored descriptors came from an older model, then restart.
    await app.container.db.query(`update descriptors set model_version = '0.0.1-old'`);
    await app.stop();
    app = await startTestApp({ dataDir });
  }, START_MS);
  afterAll(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('finds images without a current-model descriptor at start and re-embeds them through a reindex job', async () => {
    const db = app.container.db;
    const fresh = async () =>
      (await db.query<{ n: number }>('select count(*)::int as n from descriptors where model_version = $1', [current])).rows[0]!.n;
    // Wait on the reindex job itself rather than on a fixed number of polls.
    await until(
      async () =>
        (await db.query<{ state: string }>(`select state from jobs where name = 'reindex' and state in ('completed', 'failed')`)).rows
          .length > 0,
      50_000,
      100,
    );
    expect(await fresh()).toBe(3);
    const job = await db.query<{ state: string; name: string }>(`select state, name from jobs where name = 'reindex'`);
    expect(job.rows).toEqual([{ state: 'completed', name: 'reindex' }]);
    // Old rows stay, but only the current model's are searched.
    const r = await post(app, '/api/identify', owner.token, photoForm([query]));
    expect(r.json.match?.individual_id).toBe(tree);
    // The owner's calibration was fitted for the new pipeline (one tree: too little to vouch, and
    // the answer says so instead of "not yet calibrated").
    const fits = await db.query<{ pipeline: string }>('select pipeline from owner_calibrations where owner_id = $1 and kind = $2', [
      owner.id,
      'tree',
    ]);
    expect(fits.rows.map((x) => x.pipeline)).toEqual([`${current}|base|all`]);
    expect(r.json.calibration).toMatchObject({
      source: 'kind_default',
      reason: expect.stringMatching(/^not enough of your own photos to vouch for 1% false matches: /),
    });
  });
});
