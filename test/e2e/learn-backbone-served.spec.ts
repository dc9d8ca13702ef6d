/** Fine-tuning the backbone on the owner's photos: an adopted version served, retrained on every photo, judged, rolled back (learn-backbone.helpers.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeOfJob, type OwnerScope } from '../../shared/src/access/owner-scope.js';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineOnce } from '../../workers/src/handlers/index.js';
import { adoptedVersion, BACKBONE_RECIPE, rollback } from '../../workers/src/learn/store.js';
import { trainOwner } from '../../workers/src/learn/train.js';
import { recordRun } from '../../workers/src/learn/loop.js';
import { honestSample } from '../../workers/src/recognition/owner-calibration.js';
import { api, type TestApp } from '../support/app.js';
import { detectableShots } from '../support/animal-shots.js';
import { photoForm } from '../support/images.js';
import { countRows, identifyAs, settled, startBackboneHerd, tiny, type BackboneHerd } from './learn-backbone.helpers.js';

describe('a backbone fine-tuned on the owner’s animal photos: the adopted version served, retrained, judged and rolled back (embedded)', () => {
  let herd: BackboneHerd;
  let app: TestApp;
  let owner: BackboneHerd['owner'];
  /** The owner's records, as the train job would scope them. */
  let scope: OwnerScope;
  let other: BackboneHerd['other'];
  let dids: string[];

  beforeAll(async () => {
    herd = await startBackboneHerd();
    ({ app, owner, other, dids } = herd);
    scope = scopeOfJob({ owner_id: owner.id });
  }, 240_000);
  afterAll(async () => {
    await herd?.app.stop();
  });

  const identify = (token: string, k: number) => identifyAs(herd, token, k);
  const count = (sql: string, args: unknown[]) => countRows(herd, sql, args);

  it('after adoption trains the same recipe again on every photo and serves it when it serves no worse, both figures on the run', async () => {
    const engine = await engineOnce();
    // Forced adoption to exercise serving with a model this small (the gate would refuse it); the
    // retrain follows any adoption.
    const v = await trainOwner(app.container, engine, scope, 'animal', 'job:keep-1', {
      recipe: 'backbone',
      forceAdopt: true,
      backbone: settled,
    });
    expect(v.status).toBe('adopted');
    const report = v.report as Record<string, unknown> & { retrain: Record<string, unknown> };
    // Judged on 6 of the 9 photos (each animal's last held out), retrained on all 9 with the judged
    // run's own settings, both scored on the same 3 held-out photos; the retrained model has no
    // photo left that it never trained on, so its calibration rests on none.
    expect(report.retrain).toMatchObject({
      served: 'retrained',
      error: null,
      recipe: { epochs: 8, seed: 1, freeze: 40, margin: 0.2, dim: 32, height: 64, width: 96 },
      judged: { trained_on: 6, closed: 3, calibration_queries: 3 },
      retrained: { trained_on: 9, closed: 3, calibration_queries: 0, allowed_false_matches: -1 },
      message: { code: 'learn_retrain_served' },
    });
    // The model stored is the one trained on every photo; the judged one's record is kept beside it.
    expect(report.trainer).toMatchObject({ items: 9, eval: 0 });
    expect(report.judged_trainer).toMatchObject({ items: 6, eval: 3 });
    // Nothing it saw may calibrate it: only photos enrolled after it will.
    expect(report).toMatchObject({ trained_on_all: true, held_out_images: [], strangers: [] });
    const ids = (
      await app.container.db.query<{ id: string; individual_id: string }>(
        'select i.id, i.individual_id from images i join individuals ind on ind.id = i.individual_id where ind.owner_id = $1',
        [owner.id],
      )
    ).rows;
    expect(
      honestSample(
        ids.map((r) => ({ image_id: r.id, individual_id: r.individual_id })),
        { recipe: BACKBONE_RECIPE, report },
      )!.rows,
    ).toEqual([]);
    // A retry of the job returns the stored version without training either model again.
    expect(
      await trainOwner(app.container, engine, scope, 'animal', 'job:keep-1', {
        recipe: 'backbone',
        forceAdopt: true,
        backbone: settled,
      }),
    ).toEqual(v);
    expect(await count(`select count(*)::int as n from learned_models where job_key = 'job:keep-1'`, [])).toBe(1);
    // The owner reads both on the run, the reason in both languages.
    await recordRun(app.container.db, scope, {
      kind: 'animal',
      jobId: 'keep-1',
      status: 'adopted',
      decision: { version: v.version, reason: report.decision, report },
    });
    const r = await api(app.url, 'GET', '/api/learning/animal', { token: owner.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json.adopted).toEqual({ version: v.version, recipe: BACKBONE_RECIPE });
    expect(r.json.runs[0].retrain).toMatchObject({
      served: 'retrained',
      judged: { trained_on: 6 },
      retrained: { trained_on: 9 },
      reason_message: {
        code: 'learn_retrain_served',
        en: expect.stringMatching(/^Kept what it learned: .*all 9 photos \(the judged one on 6\)/),
        vi: expect.stringContaining('cả 9 ảnh'),
      },
    });
  }, 300_000);

  it('identify shortlists through the adopted backbone, embeds each enrolled photo once, and never for another account', async () => {
    const engine = await engineOnce();
    // The version adopted (and retrained on every photo) by the test above.
    const v = (await adoptedVersion(app.container.db, scope, 'animal', engine.model))!;
    expect(v.status).toBe('adopted');
    // Adoption keeps the gallery as the tested model embedded it.
    const stored = `select count(*)::int as n from learned_embeddings where owner_id = $1 and version = $2`;
    expect(await count(stored, [owner.id, v.version])).toBe(9);
    const out = await identify(owner.token, 1);
    expect(out.learned).toEqual({ name: 'owner-metric', version: String(v.version) });
    expect(out.candidates[0]?.animal_did).toBe(dids[1]);
    // No owner fit for this model yet: the kind's defaults vouch for nothing behind it, so no match.
    expect(out.verdict).toBe('uncertain');
    expect(out.calibration).toMatchObject({
      source: 'kind_default',
      match_threshold: 1.01,
      reason: expect.stringMatching(/^the model fine-tuned on your photos is not yet calibrated/),
    });
    await identify(owner.token, 2);
    expect(await count(stored, [owner.id, v.version])).toBe(9);
    // An animal enrolled after adoption is embedded by the model on the next identify, once.
    const late = (await detectableShots(705, 3)).map((x) => x.photo);
    const r = await api(app.url, 'POST', '/api/animal/enroll', {
      token: owner.token,
      body: photoForm(late, { species: 'elephant', farm_id: 'ft' }),
    });
    expect(r.status, r.text).toBe(200);
    await identify(owner.token, 2);
    expect(await count(stored, [owner.id, v.version])).toBe(12);
    expect((await identify(other.token, 1)).learned ?? null).toBeNull();
  }, 300_000);

  it('judges a served model retrained on every photo only on held-out photos enrolled after it', async () => {
    const engine = await engineOnce();
    const served = (await adoptedVersion(app.container.db, scope, 'animal', engine.model))!;
    expect(served.report.trained_on_all).toBe(true);
    const out = await trainOwner(app.container, engine, scope, 'animal', null, {
      recipe: 'backbone',
      backbone: tiny,
    });
    // Four animals, each one's last photo held out; the served model trained on three of them
    // (enrolled before it), so the gate asks only the late animal's.
    expect(out.report).toMatchObject({ enrolled_photos: 12, held_out: 4, gate_held_out: 1, current_version: served.version });
    expect((out.report.served_gate as { served: { closed: number } }).served.closed).toBe(1);
    expect(out.status).toBe('rejected');
  }, 300_000);

  it('rolls back to the previous adopted version with one call', async () => {
    const engine = await engineOnce();
    const cur = (await adoptedVersion(app.container.db, scope, 'animal', engine.model))!;
    const back = await rollback(app.container.db, scope, 'animal');
    expect(back.rolledBack).toBe(cur.version);
    const now = await adoptedVersion(app.container.db, scope, 'animal', engine.model);
    expect(now?.version ?? null).toBe(back.adopted);
    const out = await identify(owner.token, 0);
    expect(out.learned).toEqual(back.adopted === null ? null : { name: 'owner-metric', version: String(back.adopted) });
    expect(out.candidates[0]?.animal_did).toBe(dids[0]);
  }, 300_000);

  it('keeps the judged model serving, with the reason, when the retrain on every photo fails', async () => {
    const engine = await engineOnce();
    // The trainer fails only for the run that holds nothing out (the retrain), as a killed trainer would.
    const dir = await mkdtemp(join(tmpdir(), 'markless-trainer-'));
    const wrapper = join(dir, 'python3');
    await writeFile(
      wrapper,
      [
        '#!/bin/sh',
        'prev=""; data=""',
        'for a in "$@"; do [ "$prev" = "--data" ] && data="$a"; prev="$a"; done',
        'if [ -n "$data" ] && grep -q \'"eval":\\[\\]\' "$data"; then echo "trainer killed" >&2; exit 9; fi',
        `exec ${process.env.TRAIN_PYTHON ?? '/usr/bin/python3'} "$@"`,
      ].join('\n'),
    );
    await chmod(wrapper, 0o755);
    const before = process.env.TRAIN_PYTHON;
    process.env.TRAIN_PYTHON = wrapper;
    try {
      const v = await trainOwner(app.container, engine, scope, 'animal', null, {
        recipe: 'backbone',
        forceAdopt: true,
        backbone: tiny,
      });
      expect(v.status).toBe('adopted');
      const report = v.report as Record<string, unknown>;
      // Twelve photos of four animals, each one's last held out: the judged model trained on 8 and serves.
      expect(report.retrain).toMatchObject({
        served: 'judged',
        retrained: null,
        error: expect.stringContaining('trainer killed'),
        judged: { trained_on: 8, closed: 4 },
        message: { code: 'learn_retrain_failed', params: { photos: 12 } },
      });
      expect(report).toMatchObject({ trained_on_all: false, trainer: { items: 8, eval: 4 } });
      // It never saw its held-out photos: they may calibrate it.
      expect(report.held_out_images).toHaveLength(4);
      expect((await adoptedVersion(app.container.db, scope, 'animal', engine.model))?.version).toBe(v.version);
    } finally {
      if (before === undefined) delete process.env.TRAIN_PYTHON;
      else process.env.TRAIN_PYTHON = before;
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
