import type { Container } from '../../../shared/src/container.js';
import { createCalibrationPoolService } from './calibration-pool.service.js';
import { calibrationPoolRepo } from '../../../shared/src/repos/calibration-pool.repo.js';
import { createStreamSlots } from './stream-slots.js';
import { createAuthService } from './auth.service.js';
import { createAdminService } from './admin.service.js';
import { adminReportsRepo } from '../../../shared/src/repos/admin-reports.repo.js';
import { createFeedbackService } from './feedback.service.js';
import { feedbackRepo } from '../../../shared/src/repos/feedback.repo.js';
import { activityEventsRepo } from '../../../shared/src/repos/activity-events.repo.js';
import { createJobsService } from './jobs.service.js';
import { createVerdictService } from './verdict.service.js';
import { identifyVerdictsRepo } from '../../../shared/src/repos/identify-verdicts.repo.js';
import { maybeQueueLearning } from '../../../shared/src/repos/learning-runs.js';
import { individualAccess } from '../../../shared/src/access/standing.js';
import { createMediaService } from './media.service.js';
import { storeBlob } from '../../../shared/src/repos/evidence/blob-registry.js';
import { addBlobOwner, releaseBlobs, removeBlobOwner, stage, unstage } from '../../../shared/src/repos/evidence/blob-refs.js';
import { createIndividualsService } from './individuals.service.js';
import { createAnimalReviewService } from './animal-review.service.js';
import { identifyQueriesRepo } from '../../../shared/src/repos/identify-queries.repo.js';
import { createAnimalMergeService } from './animal-merge.service.js';
import * as mergesRepo from '../../../shared/src/repos/animal-merge.repo.js';
import { appendChainEvent, loadChain } from '../../../shared/src/repos/evidence/chain-store.js';
import { createTreeRef } from './tree-ref.js';
import { treesRepo } from '../../../shared/src/repos/trees.repo.js';
import { fruitListRepo } from '../../../shared/src/repos/fruit-list.repo.js';
import { scanTokensRepo } from '../../../shared/src/repos/scan-tokens.repo.js';
import { viewsRepo } from '../../../shared/src/repos/views.repo.js';
import { fruitPublicRepo } from '../../../shared/src/repos/fruit-public.repo.js';
import { dropUnusedBlobs, fruitBatchRepo } from '../../../shared/src/repos/fruit-batch.repo.js';
import { treeRecordCode } from '../../../shared/src/repos/evidence/tree-record.js';
import { pinTreeEvidence } from '../../../shared/src/repos/evidence/pin-evidence.js';
import { describeLatestAnchor } from './anchor-public.service.js';
import { createGrantsService } from './grants.service.js';
import { grantsRepo } from '../../../shared/src/repos/grants.repo.js';
import { createResolveService } from './resolve.service.js';
import { createScanService } from './scan.service.js';
import { createTreesService } from './trees.service.js';
import { createViewsService } from './views.service.js';
import { createEvidenceServices } from './evidence-services.js';
import { createFarmsService } from './farms.service.js';
import { farmsRepo } from '../../../shared/src/repos/farms.repo.js';
import { bindFarm, resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { pinSideRecord, writeSideRecord } from '../../../shared/src/repos/evidence/side-record-store.js';
import { createCareServices } from './care-services.js';
import { createPopulationService } from '../../../shared/src/population/population.service.js';
import { populationRepo } from '../../../shared/src/repos/population.repo.js';
import { surveysRepo } from '../../../shared/src/repos/surveys.repo.js';
import { createFruitPublicService } from './fruit-public.service.js';
import { createFruitBatchService } from './fruit-batch.service.js';
import { createAnimalServices } from './animal-services.js';
import { createOpsService } from './ops.service.js';
import { workerStatusRepo } from '../../../shared/src/repos/worker-status.repo.js';
import { createDatasciExportService } from './datasci-export.service.js';
import { datasciExportRepo } from '../../../shared/src/repos/datasci-export.repo.js';
import { accountsRepo, didChallengesRepo, tokensRepo } from '../../../shared/src/repos/accounts.repo.js';
import * as loginThrottle from './login-throttle.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import { createSurveyService } from './survey.service.js';
import { createReviewQueueService } from './review-queue.service.js';
import { createFruitListService } from './fruit-list.service.js';

/** Every service the routes call, built once per process from the container. */
export function createServices(c: Container) {
  const jobs = createJobsService({ queue: c.queue, waitMs: c.config.JOB_WAIT_MS });
  const media = createMediaService({
    db: c.db,
    storeBlob: (bytes, type) => storeBlob(c, bytes, type),
    releaseBlobs: (cids) => releaseBlobs(c, cids),
    refs: { stage, unstage, addBlobOwner, removeBlobOwner },
    limits: {
      imageMaxPixels: c.config.IMAGE_MAX_PIXELS,
      videoMaxSeconds: c.config.VIDEO_MAX_SECONDS,
      videoMaxPixels: c.config.VIDEO_MAX_PIXELS,
    },
    logger: c.logger,
  });
  const treeRef = createTreeRef({ db: c.db, trees: treesRepo });
  const trees = createTreesService({
    db: c.db,
    access: individualAccess,
    trees: treesRepo,
    recordCode: treeRecordCode,
    pin: c.pinner ? (treeId) => pinTreeEvidence({ db: c.db, blobs: c.blobs, pinner: c.pinner! }, treeId) : null,
    logger: c.logger,
  });
  const individuals = createIndividualsService({
    db: c.db,
    access: individualAccess,
    activity: activityEventsRepo,
    media,
    jobs,
    speciesCatalogPath: c.config.speciesCatalogPath,
    imageMaxPixels: c.config.IMAGE_MAX_PIXELS,
  });
  const verdicts = createVerdictService({
    db: c.db,
    queries: identifyQueriesRepo,
    labels: identifyVerdictsRepo,
    access: individualAccess,
    queueLearning: (owner, kind) => maybeQueueLearning(c, owner, kind),
    logger: c.logger,
  });
  const fruitList = createFruitListService({ db: c.db, fruit: fruitListRepo, treeRef, access: individualAccess });
  return {
    auth: createAuthService({
      db: c.db,
      accounts: accountsRepo,
      tokens: tokensRepo,
      didChallenges: didChallengesRepo,
      activity: activityEventsRepo,
      individuals: individualsRepo,
      rateLimits: c.rateLimits,
      throttle: loginThrottle,
      passwords: { hash: hashPassword, verify: verifyPassword },
      config: c.config,
    }),
    feedback: createFeedbackService({ db: c.db, feedback: feedbackRepo, activity: activityEventsRepo }),
    admin: createAdminService({ db: c.db, reports: adminReportsRepo }),
    jobs,
    verdicts,
    media,
    individuals,
    animalReview: createAnimalReviewService({ db: c.db, answers: identifyQueriesRepo, individuals, verdicts }),
    animalMerge: createAnimalMergeService({
      db: c.db,
      individuals,
      merges: mergesRepo,
      appendChainEvent,
      loadChain,
      activity: activityEventsRepo,
    }),
    /** A tree's id from its id or printed code (issue 24: the code works wherever a tree id is asked). */
    treeRef,
    trees,
    views: createViewsService({ db: c.db, views: viewsRepo, trees }),
    grants: createGrantsService({ db: c.db, grants: grantsRepo }),
    scan: createScanService({
      db: c.db,
      scans: scanTokensRepo,
      speciesCatalogPath: c.config.speciesCatalogPath,
      imageMaxPixels: c.config.IMAGE_MAX_PIXELS,
    }),
    resolve: createResolveService({
      db: c.db,
      trees: treesRepo,
      latestAnchor: describeLatestAnchor,
      speciesCatalogPath: c.config.speciesCatalogPath,
    }),
    farms: createFarmsService({
      db: c.db,
      farms: farmsRepo,
      owners: { resolve: resolveEntity, bind: bindFarm },
      writeRecord: writeSideRecord,
      pin: c.pinner ? (encoded) => pinSideRecord({ blobs: c.blobs, pinner: c.pinner! }, encoded) : null,
      recordBoundaries: c.config.EVIDENCE_FRUIT_AND_BOUNDARIES,
      logger: c.logger,
    }),
    population: createPopulationService({ db: c.db, population: populationRepo }),
    ...createEvidenceServices(c, jobs),
    ...createCareServices(c, media),
    fruitPublic: createFruitPublicService({
      db: c.db,
      fruit: fruitPublicRepo,
      media,
      trees,
      queue: c.queue,
      rateLimits: c.rateLimits,
      dropBlobs: (cids) => dropUnusedBlobs(c, cids),
      logger: c.logger,
      settings: { jobWaitMs: c.config.JOB_WAIT_MS, scanTtlS: c.config.FRUIT_SCAN_TTL_S, perMinute: c.config.FRUIT_PUBLIC_PER_MIN },
    }),
    fruitBatch: createFruitBatchService({
      batches: fruitBatchRepo(c.db),
      storeBlob: (bytes, type) => storeBlob(c, bytes, type),
      dropUnusedBlobs: (cids) => dropUnusedBlobs(c, cids),
      queue: c.queue,
      trees,
      fruitSummaries: fruitList.summaries,
      limits: {
        maxPhotos: c.config.BATCH_MAX_PHOTOS,
        maxViews: c.config.BATCH_MAX_VIEWS,
        maxBytes: c.config.BATCH_MAX_BYTES,
        maxPixels: c.config.IMAGE_MAX_PIXELS,
        archive: {
          maxEntries: c.config.ARCHIVE_MAX_ENTRIES,
          maxTotalBytes: c.config.ARCHIVE_MAX_INFLATED_BYTES,
          maxRatio: c.config.ARCHIVE_MAX_RATIO,
        },
      },
      pollMs: c.config.BATCH_EVENTS_POLL_MS,
      logger: c.logger,
    }),
    ...createAnimalServices(c, { trees, media, jobs }),
    ops: createOpsService({
      mode: c.config.MODE,
      db: c.db,
      workerStatus: workerStatusRepo,
      queueAdmin: c.queue.admin,
      blobs: c.blobs,
      metrics: c.metrics,
    }),
    calibrationPool: createCalibrationPoolService({
      db: c.db,
      pool: calibrationPoolRepo,
      queue: c.queue,
      pooling: c.config.CALIBRATION_POOLING,
    }),
    datasciExport: createDatasciExportService({
      db: c.db,
      exports: datasciExportRepo,
      individuals: individualsRepo,
      blobs: c.blobs,
      logger: c.logger,
    }),
    streamSlots: createStreamSlots({
      perBatch: c.config.SSE_MAX_PER_BATCH,
      perSurvey: c.config.SSE_MAX_PER_SURVEY,
      perAccount: c.config.SSE_MAX_PER_ACCOUNT,
    }),
    survey: createSurveyService({
      db: c.db,
      surveys: surveysRepo,
      population: populationRepo,
      queue: c.queue,
      media,
      trees,
      verdicts,
      jobs,
      pollMs: c.config.BATCH_EVENTS_POLL_MS,
    }),
    reviewQueue: createReviewQueueService({ db: c.db, answers: identifyQueriesRepo }),
    fruitList,
  };
}

export type Services = ReturnType<typeof createServices>;
