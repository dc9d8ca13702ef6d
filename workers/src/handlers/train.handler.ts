import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import type { RecognitionEngine } from '../vision/engine.js';
import type { BackboneOptions } from '../learn/backbone.js';
import { trainOwner } from '../learn/train.js';
import { recordRun } from '../learn/loop.js';
import { chooseRecipe } from '../learn/recipe-choice.js';
import { calibrationScopes, fitOwnerCalibration, type OwnerFitDeps } from '../recognition/owner-calibration.js';
import type { Pools } from '../recognition/pool.js';
import type { LearnedGalleries } from '../learn/gallery.js';

/**
 * Train one owner's metric for one kind (workers/src/learn/train.ts). The job id keys the stored
 * version, so a retry after a crash returns what the first run stored instead of training twice.
 * Then, with the pools at hand, the owner's calibration is refitted for the pipeline now serving
 * (a new version is a new pipeline; new photos are more data either way), and the run's decision
 * is recorded for the owner (learning loop, learn/loop.ts).
 */
export function trainHandler(deps: {
  c: Container;
  engine: RecognitionEngine;
  backbone?: BackboneOptions;
  pools?: Pools;
  learned?: LearnedGalleries;
}): JobHandler<'train_metric'> {
  return async (data, ctx) => {
    // The account the job runs for, made once here and passed down to every statement on its records.
    const owner = scopeOfJob(data);
    // A loop run names no recipe: the best this worker can train (a backbone for animals where torch is installed).
    const recipe = data.recipe ?? (ctx.id.startsWith('learn-') ? await chooseRecipe(data.kind) : 'linear');
    let out: Awaited<ReturnType<typeof trainOwner>>;
    try {
      out = await trainOwner(deps.c, deps.engine, owner, data.kind, `job:${ctx.id}`, { recipe, backbone: deps.backbone });
    } catch (err) {
      // Recorded, so the owner sees it and the loop is not held by a run that will never finish; a retry overwrites it.
      await recordRun(deps.c.db, owner, {
        kind: data.kind,
        jobId: ctx.id,
        status: 'failed',
        decision: { reason: `training failed: ${(err as Error).message}` },
      }).catch(() => undefined);
      throw err;
    }
    let calibration: Record<string, unknown> | null = null;
    if (deps.pools) {
      const fitDeps: OwnerFitDeps = {
        c: deps.c,
        engine: deps.engine,
        pools: deps.pools,
        ...(deps.learned ? { learned: deps.learned } : {}),
      };
      calibration = {};
      for (const scope of calibrationScopes(data.kind)) {
        const { pipeline, report } = await fitOwnerCalibration(fitDeps, data.owner_id, data.kind, scope);
        const { params, ...figures } = report;
        calibration[scope] = { pipeline, fitted: params !== null, ...figures };
      }
    }
    const status = out.status === 'adopted' ? 'adopted' : out.status === 'rejected' ? 'refused' : 'skipped';
    await recordRun(deps.c.db, owner, {
      kind: data.kind,
      jobId: ctx.id,
      status,
      decision: { version: out.version, reason: out.report.decision ?? out.report.reason ?? null, report: out.report, calibration },
    });
    return { owner_id: data.owner_id, kind: data.kind, ...out };
  };
}
