import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import { assertHandlers, type JobHandlers, type Kind } from '../../../shared/src/domain/jobs.js';
import { descriptorsRepo } from '../../../shared/src/repos/descriptors.repo.js';
import { RecognitionEngine } from '../vision/engine.js';
import { testEngine } from '../vision/choose-engine.js';
import { runCalibrationPool } from '../recognition/pool-calibration.js';
import { createPools } from '../recognition/pool.js';
import { loadCalibrations } from '../recognition/calibration.js';
import { createShadow, servingDir, servingEngine } from '../recognition/model-lifecycle.js';
import { poolOwners as grantedPools } from '../../../shared/src/access/pool-owners.js';
import { anchorHandler } from './anchor.handler.js';
import { animalSpeciesHandler } from './animal-species.handler.js';
import { animalDetector } from '../vision/animal-detector.js';
import { autoHandler } from './auto.handler.js';
import { enrollHandler } from './enroll.handler.js';
import { identifyHandler } from './identify.handler.js';
import { reindexHandler } from './reindex.handler.js';
import { videoHandler } from './video.handler.js';
import { surveyHandler } from './survey.handler.js';
import { fruitLookupHandler } from './fruit-public.handler.js';
import { fruitBatchItemHandler } from './fruit-batch.handler.js';
import { publishWorkerStatus } from '../status.js';
import { setEmbedObserver } from '../vision/embed.js';
import { trainHandler } from './train.handler.js';
import { modelRegisterHandler } from './model-register.handler.js';
import { createLearnedGalleries } from '../learn/gallery.js';
import { createEnginePool, withLane } from '../engine-pool/index.js';
import { pooledEngine, poolObserver, timedContainer } from '../engine-pool/pooled-engine.js';
import { queueOf } from '../../../shared/src/domain/queues.js';
import { maybeQueueLearning } from '../learn/loop.js';

let shared: Promise<RecognitionEngine> | null = null;
/** One engine per process: the ONNX session and OpenCV are loaded once. */
export const engineOnce = () => (shared ??= RecognitionEngine.create());

/**
 * Build the handler for every catalogued job. Throws at start when one is missing.
 * Photos are described in an engine pool (workers/src/engine-pool; ENGINE_POOL_SIZE threads,
 * closed with the container); jobs of the `identify` queue go first there, the rest is bulk.
 */
export async function createHandlers(container: Container): Promise<JobHandlers> {
  const c = timedContainer(container);
  // The test suite's deterministic engine when configured (choose-engine.ts); it describes in process.
  const test = await testEngine(c.config);
  // A model promoted through the registry (npm run models -- promote) serves from the next start.
  const base = test ?? (await servingEngine(c)) ?? (await engineOnce());
  const pool = createEnginePool({
    size: c.config.ENGINE_POOL_SIZE,
    batchSize: c.config.ENGINE_BATCH_SIZE,
    lingerMs: c.config.ENGINE_LINGER_MS,
    modelDir: (await servingDir(c)) ?? '',
    observer: poolObserver(c.metrics, () => pool),
    // The deterministic test engine describes in process: its pool starts threads only if a job asks.
    lazy: test !== null,
  });
  container.onClose(() => pool.close());
  // Calibrations below are this container's: they are set on a view, not on the process's engine.
  const own = base.withOwnCalibrations();
  const engine = test ? own : pooledEngine(own, pool, c.metrics);
  // Calibrations re-fitted from labels (npm run calibrate -- --apply) take effect at start.
  for (const [kind, params] of Object.entries(await loadCalibrations(c.db))) engine.setCalibration(kind as Kind, params);
  // What this process loaded, for /api/health and /metrics (the API never loads the model itself).
  await publishWorkerStatus(c, engine);
  setEmbedObserver((n) => c.metrics.embedBatch(n));
  const pools = createPools(c, engine);
  // The caller's own pool plus pools shared with it through /api/grant; nothing else crosses accounts.
  const poolOwners = (searcher: OwnerScope, kind: Kind) => grantedPools(c.db, searcher, kind);
  const learned = createLearnedGalleries(c, engine);
  const detect = { run: pool.detect, looks: pool.detectLooks, motion: pool.motion, threads: pool.settings.size };
  const deps = {
    c,
    engine,
    pools,
    poolOwners,
    learned,
    detect,
    onEnrolled: async (owner: OwnerScope, kind: Kind) => {
      await pools.indexFor(owner.ownerId);
      // The learning loop: enough new photos queue the owner's training (never fails an enrolment).
      await maybeQueueLearning(c, owner, kind).catch((err: unknown) =>
        c.logger.warn({ err, owner: owner.ownerId }, 'learning loop check failed'),
      );
    },
    shadow: createShadow(c, poolOwners),
  };
  const handlers: Partial<JobHandlers> = {
    enroll: enrollHandler(deps),
    identify: identifyHandler(deps),
    identify_auto: autoHandler(deps),
    video: videoHandler(deps),
    survey: surveyHandler(deps),
    reindex: reindexHandler(deps),
    anchor: anchorHandler(c),
    fruit_lookup: fruitLookupHandler(deps),
    fruit_batch_item: fruitBatchItemHandler(deps),
    animal_species: animalSpeciesHandler({ ...deps, detector: animalDetector }),
    train_metric: trainHandler(deps),
    model_register: modelRegisterHandler(c),
    calibration_pool: async () => runCalibrationPool(c, engine.model.version),
  };
  assertHandlers(handlers);
  return laned(handlers);
}

/** Each job's describes in its lane: interactive for the identify queue, bulk for every other. */
function laned(handlers: JobHandlers): JobHandlers {
  const out: Record<string, unknown> = {};
  for (const [name, h] of Object.entries(handlers) as [string, (d: unknown, ctx: unknown) => Promise<unknown>][]) {
    const lane = queueOf(name) === 'identify' ? 'interactive' : 'bulk';
    out[name] = (d: unknown, ctx: unknown) => withLane(lane, () => h(d, ctx));
  }
  return out as JobHandlers;
}

/**
 * When the model changes, images enrolled under the old one have no descriptor from the new one:
 * enqueue one `reindex` job (its fixed id deduplicates across processes) to re-embed them.
 */
export async function scheduleReindexIfNeeded(c: Container): Promise<string | null> {
  const engine = (await testEngine(c.config)) ?? (await engineOnce());
  if (!(await descriptorsRepo.anyUndescribed(c.db, engine.model))) return null;
  const jobId = `reindex-${engine.model.name}-${engine.model.version}`.replace(/[^A-Za-z0-9._-]/g, '_');
  c.logger.info({ jobId }, 'images without a current-model descriptor: re-embedding');
  return c.queue.enqueue('reindex', { model_version: engine.model.version }, { jobId });
}
