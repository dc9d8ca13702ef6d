import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeOfJob } from '../../shared/src/access/owner-scope.js';
import { engineOnce } from '../../workers/src/handlers/index.js';
import { recordRun } from '../../workers/src/learn/loop.js';
import { adoptedVersion, rollback } from '../../workers/src/learn/store.js';
import { trainOwner } from '../../workers/src/learn/train.js';
import { calibrationFor, pipelineKey, refitMissingCalibrations } from '../../workers/src/recognition/owner-calibration.js';
import { DEFAULT_CALIBRATION } from '../../workers/src/vision/calibrate.js';
import { createPools } from '../../workers/src/recognition/pool.js';
import { fitFusion } from '../../workers/src/vision/fusion.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/**
 * The learning loop on generated trees (issue 23): enough new enrolled photos queue the owner's
 * training by themselves, the run is recorded with its decision and the refitted calibration,
 * the owner reads it at /api/learning/{kind}, the operator on /metrics, and one call rolls back
 * an adoption (recorded too). LEARN_AFTER_NEW is 6 here: two trees of three photos.
 */
const post = (app: TestApp, path: string, token: string, form: FormData) => api(app.url, 'POST', path, { token, body: form });

describe('the learning loop runs itself (embedded)', () => {
  let app: TestApp;
  let owner: { token: string; id: string };
  const queryPhotos: Buffer[] = [];

  beforeAll(async () => {
    app = await startTestApp({ env: { LEARN_AFTER_NEW: '6', METRICS_ACCESS: 'public' } });
    owner = await signup(app.url);
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  const enrolTree = async (seed: number) => {
    const surface = await textureImage(seed, 384);
    const views = await Promise.all([1, 2, 3].map((k) => otherView(surface, seed * 10 + k)));
    const r = await post(app, '/api/enroll', owner.token, photoForm(views));
    expect(r.status).toBe(200);
    queryPhotos.push(await otherView(surface, seed * 10 + 7));
    return r.json.tree_id as string;
  };
  const runs = async () =>
    (
      await app.container.db.query<{ id: number; status: string; job_id: string | null; trigger: Record<string, unknown> }>(
        'select id, status, job_id, trigger from learning_runs where owner_id = $1 order by id',
        [owner.id],
      )
    ).rows;
  const learning = async () => {
    const r = await api(app.url, 'GET', '/api/learning/tree', { token: owner.token });
    expect(r.status).toBe(200);
    return r.json;
  };

  it('waits below the threshold, then queues one run on the bulk lane once enough photos are new', async () => {
    await enrolTree(81);
    expect(await runs()).toEqual([]);
    expect((await learning()).pending).toMatchObject({ new_photos: 3, new_labels: 0 });
    await enrolTree(82);
    const [run] = await runs();
    expect(run).toMatchObject({ job_id: `learn-${run!.id}`, trigger: { new_photos: 6, new_labels: 0, threshold: 6 } });
    const job = await app.container.queue.waitFor(run!.job_id!, 180_000);
    expect(job?.state).toBe('completed');
  }, 300_000);

  it('records the decision and the refitted calibration, and the owner and operator can read them', async () => {
    const [run] = await runs();
    expect(['adopted', 'refused', 'skipped']).toContain(run!.status);
    const l = await learning();
    expect(l.pending).toMatchObject({ new_photos: 0, new_labels: 0 });
    expect(l.runs).toHaveLength(1);
    expect(l.runs[0]).toMatchObject({ id: run!.id, status: run!.status, reason: expect.any(String), finished_at: expect.any(String) });
    // The same decision in both languages, for the app to show in the owner's (issue 24, item 7).
    expect(l.runs[0].reason_message).toMatchObject({
      code: expect.stringMatching(/^learn_/),
      en: l.runs[0].reason,
      vi: expect.any(String),
    });
    expect(l.runs[0].reason_message.vi).not.toBe(l.runs[0].reason);
    // Six photos of two trees cannot vouch for 1% false matches: the fit is stored, unfitted, with why.
    expect(l.calibration).toMatchObject({
      fitted: false,
      report: { reason: expect.stringMatching(/queries cannot show a false-match rate within 1%/) },
    });
    expect(l.calibration.reason_message).toMatchObject({
      code: 'cal_too_few_queries',
      params: { n: l.calibration.report.n, needed: l.calibration.report.minimum_sample },
      vi: `${l.calibration.report.n} lượt thử trên ảnh của bạn chưa đủ để bảo đảm nhận nhầm dưới 1%; cần ${l.calibration.report.minimum_sample} lượt.`,
    });
    expect(l.runs[0].decision.calibration.all).toMatchObject({ fitted: false });
    // And identify says the kind's defaults decided, and why.
    const id = await post(app, '/api/identify', owner.token, photoForm([queryPhotos[0]!]));
    expect(id.json.calibration).toMatchObject({
      source: 'kind_default',
      reason: expect.stringMatching(/^not enough of your own photos to vouch for 1% false matches: /),
      samples: expect.any(Number),
    });
    const metrics = await api(app.url, 'GET', '/metrics');
    expect(metrics.text).toContain(`markless_learning_runs{kind="tree",status="${run!.status}"} 1`);
    expect(metrics.text).toMatch(new RegExp(`markless_learning_last_run_timestamp_seconds\\{kind="tree",status="${run!.status}"\\} \\d+`));
  }, 240_000);

  it('does not queue again until enough is new since the last run', async () => {
    await enrolTree(83);
    expect(await runs()).toHaveLength(1);
    expect((await learning()).pending).toMatchObject({ new_photos: 3 });
  }, 240_000);

  it("serves the owner's own fit for the pipeline it was fitted on, and only that one", async () => {
    const engine = await engineOnce();
    // A fitted calibration for the base pipeline (fusion from generated samples; never `match`).
    const samples = Array.from({ length: 60 }, (_, i) => ({
      evidence: {
        global: 0.5 + (i % 2) * 0.3 + (i % 7) * 0.01,
        local: (i % 2) * 30 + (i % 5),
        globalMargin: 0.01 * (i % 3),
        localMargin: (i % 2) - 0.5,
        spread: 0.2,
      },
      same: i % 2 === 1,
    }));
    // Several-photo thresholds for pairs and triples (none for four photos: too few groups).
    const several = [
      { matchThreshold: 1.01, groupSize: 3, queries: 200, falseMatches: 0, fmrUpper: 0.0149 },
      { matchThreshold: 0.97, groupSize: 2, queries: 300, falseMatches: 0, fmrUpper: 0.0099 },
    ];
    const params = {
      intercept: 0,
      coef: [],
      matchThreshold: 1.01,
      uncertainThreshold: 0.05,
      source: 'test',
      fusion: fitFusion(samples).model,
      several,
    };
    const store = (report: Record<string, unknown>) =>
      app.container.db.query('insert into owner_calibrations (owner_id, kind, pipeline, params, report) values ($1, $2, $3, $4, $5)', [
        owner.id,
        'tree',
        pipelineKey(engine, null, 'all'),
        params,
        report,
      ]);
    // A fit stored before each kind of query was bounded on its own effective count is not trusted.
    await store({ n: 400, fmr_upper: 0.0093, reason: null });
    const stale = await post(app, '/api/identify', owner.token, photoForm([queryPhotos[0]!]));
    expect(stale.json.calibration).toMatchObject({
      source: 'kind_default',
      samples: 400,
      effective_samples: null,
      false_match_bound: null,
      several: null,
    });
    expect(stale.json.calibration.reason).toMatch(/^your calibration was fitted under an older rule .* until it is refitted/);
    // A refit replaces it (here: too few photos to vouch, and the answer says that instead).
    expect(await refitMissingCalibrations({ c: app.container, engine, pools: createPools(app.container, engine) }, owner.id)).toBe(1);
    const refitted = await post(app, '/api/identify', owner.token, photoForm([queryPhotos[0]!]));
    expect(refitted.json.calibration).toMatchObject({
      source: 'kind_default',
      reason: expect.stringMatching(/^not enough of your own photos to vouch for 1% false matches: /),
    });
    await store({ n: 400, effective_n: 380, fmr_upper: 0.0093, reason: null });
    const r = await post(app, '/api/identify', owner.token, photoForm([queryPhotos[0]!]));
    expect(r.json.calibration).toMatchObject({
      source: 'owner',
      reason: null,
      samples: 400,
      effective_samples: 380,
      false_match_bound: 0.0093,
      match_threshold: 1.01,
    });
    expect(r.json.calibration.several).toEqual([
      { photos: 2, match_threshold: 0.97, samples: 300, false_match_bound: 0.0099, held_to: 'best_photo' },
      { photos: 3, match_threshold: 1.01, samples: 200, false_match_bound: 0.0149, held_to: 'best_photo' },
    ]);
    // Its threshold decides: above every probability, so no `match`, and its fused probabilities are shown.
    expect(r.json.verdict).not.toBe('match');
    for (const c of r.json.candidates) expect(c.probability).toBeGreaterThanOrEqual(0.05);
  }, 240_000);

  it('withholds matches behind a fine-tuned backbone whose only fit was made under the old rule, as with no fit', async () => {
    const engine = await engineOnce();
    const db = app.container.db;
    const other = await signup(app.url, 'stale');
    await db.query(
      `insert into learned_models (owner_id, kind, version, recipe, base_model, base_version, status, params, report)
       values ($1, 'animal', 1, 'finetuned-mobilenetv2-v3', $2, $3, 'retired', $4, '{}')`,
      [other.id, engine.model.name, engine.model.version, Buffer.from([0])],
    );
    const learned = { name: 'owner-backbone', version: '1' };
    const pipeline = pipelineKey(engine, learned, 'all');
    await db.query('insert into owner_calibrations (owner_id, kind, pipeline, params, report) values ($1, $2, $3, $4, $5)', [
      other.id,
      'animal',
      pipeline,
      { ...DEFAULT_CALIBRATION, matchThreshold: 0.5 },
      { n: 400, fmr_upper: 0.0093, reason: null },
    ]);
    const cal = await calibrationFor(db, scopeOfJob({ owner_id: other.id }), 'animal', pipeline, DEFAULT_CALIBRATION, learned);
    expect(cal.params.matchThreshold).toBe(1.01);
    expect(cal.info).toMatchObject({ source: 'kind_default', match_threshold: 1.01, samples: 400, effective_samples: null });
    expect(cal.info.reason).toMatch(
      /^the model fine-tuned on your photos is not yet calibrated .*\(your calibration was fitted under an older rule .*\), so no answer is a match/,
    );
  }, 240_000);

  it('adopts, then one call rolls back, and both are on the record', async () => {
    const engine = await engineOnce();
    // Adoption forced on a gallery this small, so the rollback has something to undo.
    const v = await trainOwner(app.container, engine, scopeOfJob({ owner_id: owner.id }), 'tree', 'manual-1', { minGain: -1 });
    expect(v.status).toBe('adopted');
    await recordRun(app.container.db, scopeOfJob({ owner_id: owner.id }), {
      kind: 'tree',
      jobId: 'manual-1',
      status: 'adopted',
      decision: { version: v.version, reason: 'forced by the test' },
    });
    expect((await learning()).adopted).toMatchObject({ version: v.version });
    // A new learned version is a new pipeline: the base pipeline's fit does not carry over.
    const adoptedAnswer = await post(app, '/api/identify', owner.token, photoForm([queryPhotos[0]!]));
    expect(adoptedAnswer.json.learned).toEqual({ name: 'owner-metric', version: String(v.version) });
    expect(adoptedAnswer.json.calibration.source).toBe('kind_default');
    const back = await rollback(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree');
    expect(back.rolledBack).toBe(v.version);
    expect(await adoptedVersion(app.container.db, scopeOfJob({ owner_id: owner.id }), 'tree', engine.model)).toBeNull();
    const l = await learning();
    expect(l.adopted).toBeNull();
    expect(l.runs.map((r: { status: string }) => r.status).slice(0, 2)).toEqual(['rolled_back', 'adopted']);
    expect(l.runs[0].reason).toBe(`Version ${v.version} was rolled back; the base model alone serves.`);
    expect(l.runs[0].reason_message).toMatchObject({
      code: 'learn_rolled_back_base',
      vi: `Đã gỡ phiên bản ${v.version}; chỉ còn mô hình gốc được dùng.`,
    });
    // A run recorded with English alone (as before runs said it in both) keeps it, with no message.
    expect(l.runs[1]).toMatchObject({ reason: 'forced by the test', reason_message: null });
    // A rollback is not a run: what is pending still counts from the last real run.
    expect(l.pending.new_photos).toBe(0);
    // Back on the base pipeline, its own fit serves again.
    expect((await post(app, '/api/identify', owner.token, photoForm([queryPhotos[0]!]))).json.calibration.source).toBe('owner');
  }, 240_000);

  it('counts identify_verdict labels towards the threshold too: six labels and no new photo queue the next run', async () => {
    const before = (await runs()).length;
    for (let i = 0; i < 6; i++) {
      const q = await post(app, '/api/identify', owner.token, photoForm([queryPhotos[i % queryPhotos.length]!]));
      expect(q.status).toBe(200);
      expect((await runs()).length).toBe(before);
      const label = new FormData();
      label.append('query_id', q.json.query_id);
      label.append('verdict', 'correct');
      const v = await api(app.url, 'POST', '/api/identify_verdict', { token: owner.token, body: label });
      expect(v.status, v.text).toBe(200);
    }
    const all = await runs();
    expect(all).toHaveLength(before + 1);
    const run = all.at(-1)!;
    expect(run).toMatchObject({ job_id: `learn-${run.id}`, trigger: { new_photos: 0, new_labels: 6, threshold: 6 } });
    expect((await app.container.queue.waitFor(run.job_id!, 180_000))?.state).toBe('completed');
  }, 300_000);
});
