import type { Config } from './config/config.js';
import type { Database } from './ports/database.port.js';
import type { BlobStore } from './ports/blob-store.port.js';
import type { JobQueue } from './ports/queue.port.js';
import type { RateLimitStore } from './ports/rate-limit.port.js';
import type { AnchorBackend, Pinner } from './ports/anchor.port.js';
import { createLogger, type Logger } from './logger.js';
import { migrate } from './adapters/db/migrate.js';
import { createFsBlobStore } from './adapters/blobs/fs.adapter.js';
import { createInProcessQueue } from './adapters/queue/inprocess.adapter.js';
import { createMemoryRateLimitStore } from './adapters/ratelimit/memory.adapter.js';
import { createAnchorBackend } from './adapters/anchor/choose.js';
import { createKuboPinner } from './adapters/anchor/kubo-pin.adapter.js';
import type { OcrEngine } from './ports/ocr.port.js';
import type { ResidueStore } from './ports/residue-store.port.js';
import { createTesseractOcr, noOcr } from './adapters/ocr/tesseract.adapter.js';
import { createHttpResidueStore } from './adapters/residue/http-store.adapter.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { jobHooks } from './observability/job-hooks.js';

/** Every port the services use, with the adapters chosen for this process. */
export interface Container {
  config: Config;
  logger: Logger;
  db: Database;
  blobs: BlobStore;
  queue: JobQueue;
  rateLimits: RateLimitStore;
  /** Where chain roots are anchored (ANCHOR_BACKEND). */
  anchor: AnchorBackend;
  /** IPFS pinning of record photos and records, only when KUBO_API_URL is set. */
  pinner: Pinner | null;
  /** OCR of care packaging photos (OCR_ENGINE): the tesseract CLI, or none. */
  ocr: OcrEngine;
  /** External residue measurement store (RESIDUE_STORE_URL), or null: stamps then resolve to UNKNOWN. */
  residueStore: ResidueStore | null;
  /** This process's Prometheus metrics. */
  metrics: Metrics;
  /** Release everything, queue first so jobs in flight finish while the database is still open. */
  close(): Promise<void>;
  /** Run `fn` at close, after the queue has drained and before the database closes (engine pools, job hosts). */
  onClose(fn: () => Promise<void>): void;
}

export interface ContainerOptions {
  logger?: Logger;
  /**
   * Ports handed in instead of chosen here: a job host thread (workers/src/host) reaches the API
   * process's database, queue and metrics through a message channel. A given database is not migrated again.
   */
  db?: Database;
  queue?: JobQueue;
  metrics?: Metrics;
}

/**
 * The only place adapters are chosen:
 * - database: PostgreSQL when DATABASE_URL is set, otherwise PGlite under DATA_DIR/db;
 * - queue: BullMQ when distributed, otherwise the in-process queue on the database;
 * - blobs: S3 when S3_ENDPOINT is set, otherwise files under DATA_DIR/blobs;
 * - rate limits: Redis when distributed, otherwise memory;
 * - anchoring: ANCHOR_BACKEND, `local` (signed checkpoint log) unless `cardano` is asked for;
 * - OCR: the tesseract CLI unless OCR_ENGINE=none; residue stamps: HTTP when RESIDUE_STORE_URL is set.
 * Migrations are applied here, so every process that opens the database finds it current.
 * Each adapter's module is imported only once it is chosen, so a process loads only the clients it
 * uses: an embedded job host thread loads neither PGlite's WASM nor the S3, BullMQ and Redis
 * clients, and every service start and test boot is the shorter for it.
 */
/** The configured database alone, migrated: for operator commands that need nothing else (`npm run admin`). */
export async function openDatabase(config: Config): Promise<Database> {
  const db = config.DATABASE_URL
    ? await (await import('./adapters/db/postgres.adapter.js')).createPostgresDatabase(config.DATABASE_URL)
    : await (await import('./adapters/db/pglite.adapter.js')).createPgliteDatabase(config.dbDir);
  await migrate(db);
  return db;
}

export async function createContainer(config: Config, opts: ContainerOptions = {}): Promise<Container> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const distributed = config.MODE === 'distributed';
  const db = opts.db ?? (await openDatabase(config));
  const blobs = config.S3_ENDPOINT
    ? await (
        await import('./adapters/blobs/s3.adapter.js')
      ).createS3BlobStore({
        endpoint: config.S3_ENDPOINT,
        accessKey: config.S3_ACCESS_KEY,
        secretKey: config.S3_SECRET_KEY,
        bucket: config.S3_BUCKET,
        region: config.S3_REGION,
      })
    : await createFsBlobStore(config.blobDir);
  const metrics = opts.metrics ?? createMetrics();
  // One queue per job kind; this process serves WORKER_QUEUES, each with its own concurrency.
  const queueOpts = {
    concurrency: config.WORKER_CONCURRENCY,
    queueConcurrency: config.queueConcurrency,
    workerQueues: config.workerQueues,
    attempts: config.JOB_ATTEMPTS,
    hooks: jobHooks(logger, metrics),
    onError: (err: unknown, where: string) =>
      logger.error({ err, where }, 'the job queue could not reach its database; it tries again at the next poll'),
    fairness: { inflightCap: config.ACCOUNT_INFLIGHT_CAP, queuedQuota: config.ACCOUNT_QUEUED_QUOTA },
  };
  const queue =
    opts.queue ??
    (distributed && config.REDIS_URL
      ? (await import('./adapters/queue/bullmq.adapter.js')).createBullQueue({
          ...queueOpts,
          redisUrl: config.REDIS_URL,
          name: config.QUEUE_NAME,
          prefix: config.REDIS_PREFIX,
          stalledMs: config.JOB_STALLED_MS,
        })
      : createInProcessQueue(db, queueOpts));
  metrics.watchQueue(queue.admin);
  const rateLimits =
    distributed && config.REDIS_URL
      ? (await import('./adapters/ratelimit/redis.adapter.js')).createRedisRateLimitStore(config.REDIS_URL, `${config.REDIS_PREFIX}:rl:`)
      : createMemoryRateLimitStore();
  const anchor = await createAnchorBackend(config, db);
  const ocr =
    config.OCR_ENGINE === 'tesseract'
      ? createTesseractOcr({
          bin: config.TESSERACT_BIN,
          langs: config.TESSERACT_LANGS,
          timeoutMs: config.OCR_TIMEOUT_MS,
          maxSide: config.OCR_MAX_SIDE,
        })
      : noOcr;
  const residueStore = config.RESIDUE_STORE_URL ? createHttpResidueStore(config.RESIDUE_STORE_URL, config.RESIDUE_STORE_TIMEOUT_MS) : null;
  const closers: (() => Promise<void>)[] = [];
  logger.info({ db: db.kind, blobs: blobs.kind, queue: queue.kind, rateLimits: rateLimits.kind, anchor: anchor.kind }, 'adapters chosen');
  return {
    config,
    logger,
    db,
    blobs,
    queue,
    rateLimits,
    anchor,
    metrics,
    pinner: config.KUBO_API_URL ? createKuboPinner(config.KUBO_API_URL) : null,
    ocr,
    residueStore,
    onClose: (fn) => void closers.push(fn),
    async close() {
      await queue.close();
      for (const fn of closers.splice(0)) await fn();
      await rateLimits.close();
      await db.close();
    },
  };
}
