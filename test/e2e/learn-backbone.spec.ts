/** Fine-tuning the backbone on the owner's photos: the trainer, a refusal, a version adopted as a job (learn-backbone.helpers.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeOfJob, type OwnerScope } from '../../shared/src/access/owner-scope.js';
import * as ort from 'onnxruntime-node';
import { engineOnce } from '../../workers/src/handlers/index.js';
import { trainHandler } from '../../workers/src/handlers/train.handler.js';
import { canTrainBackbone, trainerDevice } from '../../workers/src/learn/backbone.js';
import { adoptedVersion, BACKBONE_RECIPE } from '../../workers/src/learn/store.js';
import { trainOwner } from '../../workers/src/learn/train.js';
import type { TestApp } from '../support/app.js';
import { countRows, startBackboneHerd, tiny, type BackboneHerd } from './learn-backbone.helpers.js';

describe('a backbone fine-tuned on the owner’s animal photos: training, refusal, adoption as a job (embedded)', () => {
  let herd: BackboneHerd;
  let app: TestApp;
  let owner: BackboneHerd['owner'];
  /** The owner's records, as the train job would scope them. */
  let scope: OwnerScope;

  beforeAll(async () => {
    herd = await startBackboneHerd();
    ({ app, owner } = herd);
    scope = scopeOfJob({ owner_id: owner.id });
  }, 240_000);
  afterAll(async () => {
    await herd?.app.stop();
  });

  const count = (sql: string, args: unknown[]) => countRows(herd, sql, args);

  it('finds the trainer on this machine (setup installs python3-torch)', async () => {
    expect(await canTrainBackbone()).toBe(true);
  });

  it('rejects a fine-tuned model that does not beat the current space, and stores it as rejected', async () => {
    const engine = await engineOnce();
    const out = await trainOwner(app.container, engine, scope, 'animal', null, {
      recipe: 'backbone',
      minGain: 2,
      backbone: tiny,
    });
    expect(out.status).toBe('rejected');
    expect(out.report).toMatchObject({
      recipe: BACKBONE_RECIPE,
      enrolled_photos: 9,
      held_out: 3,
      shape: { height: 64, width: 96, dim: 32 },
    });
    // The trainer ran where the probe said it would (Debian's torch: the CPU), and the report says so.
    expect((out.report.trainer as { device: string }).device).toBe(await trainerDevice());
    // Three held-out photos of a three-animal herd cannot show a gain on the served pipeline.
    expect(out.report.decision).toMatch(/^Refused: 3 held-out photos of 3 individuals are too few/);
    expect(out.report.message).toEqual({
      code: 'learn_too_few_held_out',
      params: { photos: 3, individuals: 3, min_photos: 20, min_individuals: 5 },
    });
    // Each side is judged with the calibration it would be served with: no owner fit is stored, so
    // the base model's would ask each of the 9 photos twice; the candidate's refit only its 3
    // never-trained photos (no strangers in a 3-animal herd). Neither can vouch for 1%.
    const gate = out.report.served_gate as { served: Record<string, number>; candidate: Record<string, number> };
    expect(gate.served).toMatchObject({ calibration_queries: 18, allowed_false_matches: -1 });
    expect(gate.candidate).toMatchObject({ calibration_queries: 3, allowed_false_matches: -1 });
    expect(await adoptedVersion(app.container.db, scope, 'animal', engine.model)).toBeNull();
  }, 300_000);

  it('adopts a version as a job, stores its ONNX, and a retry returns it without training again', async () => {
    const handler = trainHandler({ c: app.container, engine: await engineOnce(), backbone: tiny });
    const first = await handler({ owner_id: owner.id, kind: 'animal', recipe: 'backbone' }, { id: 'ft-1', attempt: 1 });
    const again = await handler({ owner_id: owner.id, kind: 'animal', recipe: 'backbone' }, { id: 'ft-1', attempt: 2 });
    expect(again).toEqual(first);
    expect(await count(`select count(*)::int as n from learned_models where job_key = 'job:ft-1'`, [])).toBe(1);
    const r = first.report as { served_gate: { adopt: boolean } };
    expect(first.status).toBe(r.served_gate.adopt ? 'adopted' : 'rejected');
    const row = (
      await app.container.db.query<{ recipe: string; params: Uint8Array }>(
        `select recipe, params from learned_models where job_key = 'job:ft-1'`,
      )
    ).rows[0]!;
    expect(row.recipe).toBe(BACKBONE_RECIPE);
    const session = await ort.InferenceSession.create(Uint8Array.from(row.params));
    expect(session.inputNames).toEqual(['image']);
    expect(session.outputNames).toEqual(['embedding']);
  }, 300_000);
});
