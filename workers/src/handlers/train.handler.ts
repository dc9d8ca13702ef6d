import type { Container } from '../../../shared/src/container.js';
import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import type { RecognitionEngine } from '../vision/engine.js';
import type { BackboneOptions } from '../learn/backbone.js';
import { trainOwner } from '../learn/train.js';

/**
 * Train one owner's metric for one kind (workers/src/learn/train.ts). The job id keys the stored
 * version, so a retry after a crash returns what the first run stored instead of training twice.
 */
export function trainHandler(deps: { c: Container; engine: RecognitionEngine; backbone?: BackboneOptions }): JobHandler<'train_metric'> {
  return async (data, ctx) => {
    const out = await trainOwner(deps.c, deps.engine, data.owner_id, data.kind, `job:${ctx.id}`, { recipe: data.recipe ?? 'linear', backbone: deps.backbone });
    return { owner_id: data.owner_id, kind: data.kind, ...out };
  };
}
