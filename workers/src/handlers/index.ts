import type { Container } from '../../../shared/src/container.js';
import { assertHandlers, type JobHandlers, type Kind } from '../../../shared/src/domain/jobs.js';
import { RecognitionEngine } from '../vision/engine.js';
import { createPools } from '../recognition/pool.js';
import { loadCalibrations } from '../recognition/calibration.js';
import { createShadow, servingEngine } from '../recognition/model-lifecycle.js';
import { poolOwners as grantedPools } from '../../../shared/src/access/pool-owners.js';
import { anchorHandler } from './anchor.handler.js';
import { animalSpeciesHandler } from './animal-species.handler.js';
import { animalDetector } from '../vision/animal-detector.js';
import { autoHandler } from './auto.handler.js';
import { enrollHandler } from './enroll.handler.js';
import { identifyHandler } from './identify.handler.js';
import { reindexHandler } from './reindex.handler.js';
import { videoHandler } from './video.handler.js';
import { fruitLookupHandler } from './fruit-public.handler.js';
import { fruitBatchItemHandler } from './fruit-batch.handler.js';
import { publishWorkerStatus } from '../status.js';
import { setEmbedObserver } from '../vision/embed.js';
import { trainHandler } from './train.handler.js';
import { createLearnedGalleries } from '../learn/gallery.js';

let shared: Promise<RecognitionEngine> | null = null;
/** One engine per process: the ONNX session and OpenCV are loaded once. */
export const engineOnce = () => (shared ??= RecognitionEngine.create());

/** Build the handler for every catalogued job. Throws at start when one is missing. */
export async function createHandlers(c: Container): Promise<JobHandlers> {
  // A model promoted through the registry (npm run models -- promote) serves from the next start.
  const engine = (await servingEngine(c)) ?? (await engineOnce());
  // Calibrations re-fitted from labels (npm run calibrate -- --apply) take effect at start.
  for (const [kind, params] of Object.entries(await loadCalibrations(c.db))) engine.setCalibration(kind as Kind, params);
  // What this process loaded, for /api/health and /metrics (the API never loads the model itself).
  await publishWorkerStatus(c, engine);
  setEmbedObserver((n) => c.metrics.embedBatch(n));
  const pools = createPools(c, engine);
  // The caller's own pool plus pools shared with it through /api/grant; nothing else crosses accounts.
  const poolOwners = (accountId: string, kind: Kind) => grantedPools(c.db, accountId, kind);
  const learned = createLearnedGalleries(c, engine);
  const deps = { c, engine, pools, poolOwners, learned, onEnrolled: async (owner: string) => void (await pools.indexFor(owner)), shadow: createShadow(c, poolOwners) };
  const handlers: Partial<JobHandlers> = {
    enroll: enrollHandler(deps),
    identify: identifyHandler(deps),
    identify_auto: autoHandler(deps),
    video: videoHandler(deps),
    reindex: reindexHandler(deps),
    anchor: anchorHandler(c),
    fruit_lookup: fruitLookupHandler(deps),
    fruit_batch_item: fruitBatchItemHandler(deps),
    animal_species: animalSpeciesHandler({ ...deps, detector: animalDetector }),
    train_metric: trainHandler(deps),
  };
  assertHandlers(handlers);
  return handlers;
}

/**
 * When the model changes, images enrolled under the old one have no descriptor from the new one:
 * enqueue one `reindex` job (its fixed id deduplicates across processes) to re-embed them.
 */
export async function scheduleReindexIfNeeded(c: Container): Promise<string | null> {
  const engine = await engineOnce();
  const r = await c.db.query(
    `select 1 from images i where not exists
       (select 1 from descriptors d where d.image_id = i.id and d.model = $1 and d.model_version = $2) limit 1`,
    [engine.model.name, engine.model.version],
  );
  if (!r.rows.length) return null;
  const jobId = `reindex-${engine.model.name}-${engine.model.version}`.replace(/[^A-Za-z0-9._-]/g, '_');
  c.logger.info({ jobId }, 'images without a current-model descriptor: re-embedding');
  return c.queue.enqueue('reindex', { model_version: engine.model.version }, { jobId });
}
