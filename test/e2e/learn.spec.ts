import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeOfJob } from '../../shared/src/access/owner-scope.js';
import { engineOnce } from '../../workers/src/handlers/index.js';
import { trainHandler } from '../../workers/src/handlers/train.handler.js';
import { ownerLabels } from '../../workers/src/learn/labelled.js';
import { adoptedVersion, rollback } from '../../workers/src/learn/store.js';
import { trainOwner } from '../../workers/src/learn/train.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/**
 * The service path of learning from the owner's photos: training reads enrolled photos and
 * identify_verdict labels from the real database, stores versions, the adopted one searches the
 * gallery on identify and is reported on the answer, and rollback restores the previous one. The
 * adoption rule itself (adopt only a held-out gain) is tested on generated data in
 * workers/src/learn/learn.spec.ts.
 */
const post = (app: TestApp, path: string, token: string, form: FormData) => api(app.url, 'POST', path, { token, body: form });

describe('metrics learned from the owner’s labelled photos (embedded)', () => {
  let app: TestApp;
  let owner: { token: string; id: string };
  let other: { token: string; id: string };
  const trees: string[] = [];
  const queryPhotos: Buffer[] = [];
  const queries: string[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url);
    other = await signup(app.url);
    for (const seed of [71, 72, 73, 74]) {
      const surface = await textureImage(seed, 384);
      const views = await Promise.all([1, 2].map((k) => otherView(surface, seed * 10 + k)));
      trees.push((await post(app, '/api/enroll', owner.token, photoForm(views))).json.tree_id);
      queryPhotos.push(await otherView(surface, seed * 10 + 7));
    }
    for (const p of queryPhotos.slice(0, 2)) queries.push((await post(app, '/api/identify', owner.token, photoForm([p]))).json.query_id);
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  const identify = async (token: string, k: number) => {
    const r = await post(app, '/api/identify', token, photoForm([queryPhotos[k]!]));
    expect(r.status).toBe(200);
    return r.json;
  };

  it('labels enrolled photos and the owner’s own verdicts, never another account’s individual', async () => {
    const engine = await engineOnce();
    expect(
      (await api(app.url, 'POST', '/api/identify_verdict', { token: owner.token, form: { query_id: queries[0]!, verdict: 'correct' } }))
        .status,
    ).toBe(200);
    const strangerTree = (
      await post(app, '/api/enroll', other.token, photoForm([await textureImage(79, 384), await textureImage(78, 384)]))
    ).json.tree_id;
    await api(app.url, 'POST', '/api/identify_verdict', {
      token: owner.token,
      form: { query_id: queries[1]!, verdict: 'other', correct_id: strangerTree },
    });
    const l = await ownerLabels(app.container, engine, scopeOfJob({ owner_id: owner.id }), 'tree');
    expect(l.enrolledPhotos).toBe(8);
    expect(l.verdictPhotos).toBe(1);
    expect(l.samples.filter((s) => s.label === trees[0]).length).toBe(3);
    expect(l.samples.some((s) => s.label === strangerTree)).toBe(false);
  }, 240_000);

  it('runs as a job, adopting only a held-out gain, and a retry returns the stored version', async () => {
    const handler = trainHandler({ c: app.container, engine: await engineOnce() });
    const first = await handler({ owner_id: owner.id, kind: 'tree' }, { id: 'train-1', attempt: 1 });
    const r = first.report as { candidate_loo_top1: number; current_loo_top1: number; min_gain: number; photos: number };
    expect(r.photos).toBe(9);
    expect(first.status).toBe(r.candidate_loo_top1 >= r.current_loo_top1 + r.min_gain ? 'adopted' : 'rejected');
    const retry = await handler({ owner_id: owner.id, kind: 'tree' }, { id: 'train-1', attempt: 2 });
    expect(retry).toEqual(first);
    const rows = await app.container.db.query<{ n: number }>(`select count(*)::int as n from learned_models where job_key = 'job:train-1'`);
    expect(rows.rows[0]!.n).toBe(1);
    // Start the next tests from a known state: nothing adopted.
    if (first.status === 'adopted') await rollback(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree');
  }, 240_000);

  it('identify searches through the adopted version, reports it and stores it with the query', async () => {
    const engine = await engineOnce();
    expect((await identify(owner.token, 2)).learned).toBeNull();
    // Forced adoption (minGain −1) to exercise the service path; the rule is tested on generated data.
    const v2 = await trainOwner(app.container, engine, scopeOfJob({ owner_id: owner.id }), 'tree', null, { minGain: -1 });
    const v3 = await trainOwner(app.container, engine, scopeOfJob({ owner_id: owner.id }), 'tree', null, { minGain: -1 });
    expect([v2.status, v3.status]).toEqual(['adopted', 'adopted']);
    expect(v3.version).toBe(v2.version! + 1);
    expect((await adoptedVersion(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree', engine.model))?.version).toBe(v3.version);
    const out = await identify(owner.token, 2);
    expect(out.learned).toEqual({ name: 'owner-metric', version: String(v3.version) });
    expect(out.candidates[0]?.individual_id).toBe(trees[2]);
    const stored = await app.container.db.query<{ learned_version: number }>('select learned_version from identify_queries where id = $1', [
      out.query_id,
    ]);
    expect(stored.rows[0]!.learned_version).toBe(v3.version);
    // Another account identifies with its own (base) metric, never the owner's.
    expect((await identify(other.token, 2)).learned).toBeNull();
  }, 240_000);

  it('rolls back to the previous adopted version, then to the base embedding', async () => {
    const engine = await engineOnce();
    const cur = (await adoptedVersion(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree', engine.model))!.version;
    expect(await rollback(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree')).toEqual({ rolledBack: cur, adopted: cur - 1 });
    expect((await identify(owner.token, 3)).learned).toEqual({ name: 'owner-metric', version: String(cur - 1) });
    // The version before that was rejected (or rolled back), so nothing earlier is adopted again.
    expect(await rollback(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree')).toEqual({ rolledBack: cur - 1, adopted: null });
    const base = await identify(owner.token, 3);
    expect(base.learned).toBeNull();
    expect(base.candidates[0]?.individual_id).toBe(trees[3]);
    expect(await rollback(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree')).toEqual({ rolledBack: null, adopted: null });
    const statuses = await app.container.db.query<{ status: string }>(
      'select status from learned_models where owner_id = $1 order by version',
      [owner.id],
    );
    expect(statuses.rows.map((x) => x.status).slice(-2)).toEqual(['rolled_back', 'rolled_back']);
  }, 240_000);
});
