import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedOwner } from '../../workers/src/recognition/testing/pool-owners.js';
import type { PoolSample } from '../../workers/src/recognition/pooled-fit.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { signupAdmin } from '../support/admin.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/**
 * The calibration pooled across owners, through the API: labelled answers become samples of
 * numbers only, the operator's run fits and promotes a version, a new owner's answers say the
 * pool decided, a lying owner is set aside without moving the threshold, an owner can opt out,
 * a version can be rolled back, and the operator's switch turns it all off. The recognition
 * engine is the deterministic one: the story is the serving order, not how well photos match.
 */
describe('calibration pooled across owners (embedded)', () => {
  let app: TestApp;
  let dataDir: string;
  let admin: { token: string };
  let newcomer: { token: string; id: string };
  let engineVersion: string;
  let queryId: string;
  const versions: number[] = [];

  const identify = async () => {
    const surface = await textureImage(71, 384);
    const r = await api(app.url, 'POST', '/api/identify', { token: newcomer.token, body: photoForm([await otherView(surface, 5)]) });
    expect(r.status).toBe(200);
    return r.json;
  };
  const run = async () => {
    const r = await api(app.url, 'POST', '/api/admin/calibration/pooled/run', { token: admin.token });
    expect(r.status, r.text).toBe(200);
    return r.json as { gathered: number; cells: { id: number; status: string; reason: string | null; cell: { kind: string } }[] };
  };
  /** Generated owners' answers, stored as the job stores samples (their accounts are real ones). */
  const seed = async (owner: string, samples: PoolSample[]) => {
    for (const [i, s] of samples.entries())
      await app.container.db.query(
        `insert into calibration_samples (owner_id, source, ref, kind, engine_version, species, band, views, outcome, evidence, labelled_at)
         values ($1, 'verdict', $2, 'tree', $3, '*', 'small', $4, $5, $6, now() - ($7 || ' seconds')::interval)`,
        [owner, `${owner}-${i}`, engineVersion, s.views, s.outcome, JSON.stringify(s.evidence), String(samples.length - i)],
      );
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-pool-'));
    app = await startTestApp({ dataDir, engine: 'deterministic', env: { CALIBRATION_POOL_INTERVAL_S: '0' } });
    admin = await signupAdmin(app, 'pool_operator');
    const s = await signup(app.url, 'newcomer');
    newcomer = { token: s.token, id: s.id };
    for (const k of [71, 72]) {
      const surface = await textureImage(k, 384);
      const r = await api(app.url, 'POST', '/api/enroll', {
        token: newcomer.token,
        body: photoForm(await Promise.all([1, 2].map((v) => otherView(surface, v)))),
      });
      expect(r.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("a new owner with no pool to draw on hears the kind's calibration, and says why", async () => {
    const out = await identify();
    engineVersion = out.model.version;
    queryId = out.query_id;
    expect(out.calibration.source).toBe('kind_default');
    expect(out.calibration.reason).toMatch(/not yet calibrated on your own photos/);
  });

  it("a labelled answer becomes a sample of its scores only: no photo, embedding, name or id of the owner's", async () => {
    const label = await api(app.url, 'POST', '/api/identify_verdict', {
      token: newcomer.token,
      form: { query_id: queryId, verdict: 'correct' },
    });
    expect(label.status).toBe(200);
    const out = await run();
    expect(out.gathered).toBe(1);
    const rows = await app.container.db.query<{ evidence: Record<string, unknown>; outcome: string; views: number; ref: string }>(
      'select evidence, outcome, views, ref from calibration_samples where owner_id = $1',
      [newcomer.id],
    );
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]).toMatchObject({ outcome: 'right', views: 1, ref: queryId });
    expect(Object.values(rows.rows[0]!.evidence).every((v) => typeof v === 'number')).toBe(true);
    expect(Object.keys(rows.rows[0]!.evidence)).toEqual(expect.arrayContaining(['global', 'globalMargin']));
    // One owner cannot vouch for a pool: the version is refused, and says why.
    expect(out.cells.find((c) => c.cell.kind === 'tree')).toMatchObject({ status: 'refused', reason: expect.stringMatching(/owners/) });
    // A second run finds nothing new to gather.
    expect((await run()).gathered).toBe(0);
  });

  it("with other owners' answers pooled, the new owner decides from the pool's calibration", async () => {
    for (let i = 0; i < 12; i++) {
      const o = await signup(app.url, `herd${i}`);
      await seed(o.id, generatedOwner(`o${i}`, 100 + i));
    }
    const out = await run();
    const tree = out.cells.find((c) => c.cell.kind === 'tree')!;
    expect(tree.status).toBe('serving');
    versions.push(tree.id);
    const answer = await identify();
    expect(answer.calibration.source).toBe('pooled');
    expect(answer.calibration.reason).toMatch(new RegExp(`version ${tree.id}\\)$`));
    expect(answer.calibration.false_match_bound).toBeLessThanOrEqual(0.01);
    const list = await api(app.url, 'GET', '/api/admin/calibration/pooled', { token: admin.token });
    const v = list.json.versions.find((x: { id: number }) => x.id === tree.id);
    expect(v).toMatchObject({ status: 'serving', report: { owners: 13, set_aside: [] } });
    expect(answer.calibration.match_threshold).toBeCloseTo(v.params.matchThreshold, 3);
    expect(v.shadow.candidate.samples).toBeGreaterThan(0);
  });

  it("a liar's false confirmations are set aside, named to the operator, and the threshold does not move", async () => {
    const liar = await signup(app.url, 'liar');
    await seed(
      liar.id,
      generatedOwner('liar', 999, 300).map((s) => ({ ...s, outcome: 'right' as const })),
    );
    const out = await run();
    const tree = out.cells.find((c) => c.cell.kind === 'tree')!;
    versions.push(tree.id);
    const list = (await api(app.url, 'GET', '/api/admin/calibration/pooled', { token: admin.token })).json.versions;
    const before = list.find((x: { id: number }) => x.id === versions[0]);
    const after = list.find((x: { id: number }) => x.id === tree.id);
    expect(after.report.set_aside).toEqual([expect.objectContaining({ owner: liar.id, username: liar.username })]);
    expect(after.params.matchThreshold).toBe(before.params.matchThreshold);
    // Only an administrator reads the versions.
    expect((await api(app.url, 'GET', '/api/admin/calibration/pooled', { token: newcomer.token })).status).toBe(403);
  });

  it('a version rolls back to the one it replaced, and a refused one cannot be promoted', async () => {
    const back = await api(app.url, 'POST', `/api/admin/calibration/pooled/${versions[1]}/rollback`, { token: admin.token });
    expect(back.json).toEqual({ ok: true, id: versions[1], status: 'rolled_back', serving: versions[0] });
    const again = await api(app.url, 'POST', `/api/admin/calibration/pooled/${versions[1]}/rollback`, { token: admin.token });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 'calibration_not_serving', error: expect.stringMatching(/hoàn tác/) });
    const refused = (await app.container.db.query<{ id: number }>(`select id from pooled_calibrations where status = 'refused' limit 1`))
      .rows[0]!.id;
    expect((await api(app.url, 'POST', `/api/admin/calibration/pooled/${refused}/promote`, { token: admin.token })).status).toBe(404);
    expect((await api(app.url, 'POST', '/api/admin/calibration/pooled/99999/promote', { token: admin.token })).status).toBe(404);
    expect((await identify()).calibration.reason).toMatch(new RegExp(`version ${versions[0]}\\)$`));
  });

  it('an owner can opt out: their samples are deleted, their new labels are not gathered, and they still decide with the pool', async () => {
    expect((await api(app.url, 'GET', '/api/account/calibration-sharing', { token: newcomer.token })).json).toEqual({
      ok: true,
      contribute: true,
      samples: 1,
    });
    const off = await api(app.url, 'PUT', '/api/account/calibration-sharing', { token: newcomer.token, json: { contribute: false } });
    expect(off.json).toEqual({ ok: true, contribute: false, deleted: 1 });
    const q = await identify();
    expect(q.calibration.source).toBe('pooled');
    await api(app.url, 'POST', '/api/identify_verdict', { token: newcomer.token, form: { query_id: q.query_id, verdict: 'correct' } });
    await run();
    const n = await app.container.db.query('select 1 from calibration_samples where owner_id = $1', [newcomer.id]);
    expect(n.rows).toHaveLength(0);
    const bad = await api(app.url, 'PUT', '/api/account/calibration-sharing', { token: newcomer.token, json: { contribute: 'no' } });
    expect(bad.status).toBe(422);
  });

  it("the operator's switch turns pooling off: nothing serves from the pool and a run is refused", async () => {
    await app.stop();
    app = await startTestApp({ dataDir, engine: 'deterministic', env: { CALIBRATION_POOLING: 'false' } });
    const out = await identify();
    expect(out.calibration.source).toBe('kind_default');
    const r = await api(app.url, 'POST', '/api/admin/calibration/pooled/run', { token: admin.token });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ code: 'pooling_off', error: expect.stringMatching(/CALIBRATION_POOLING=false/) });
  });
});
