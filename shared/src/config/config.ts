import { execSync } from 'node:child_process';
import path from 'node:path';
import { z } from 'zod';
import { QUEUES, isQueueName, parseConcurrency, type QueueName } from '../domain/queues.js';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** Every environment variable the service reads. Parsed once, at start. */
const EnvSchema = z.object({
  MODE: z.enum(['embedded', 'distributed']).default('embedded'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_ACCESS_KEY: z.string().default('minioadmin'),
  S3_SECRET_KEY: z.string().default('minioadmin'),
  S3_BUCKET: z.string().min(3).default('markless'),
  S3_REGION: z.string().default('us-east-1'),
  /** Namespace for every Redis key (queues, rate limits), so several deployments can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('markless'),
  /** BullMQ queue name; separate names give separate worker pools. */
  QUEUE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('markless'),
  JOB_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  JOB_ATTEMPTS: z.coerce.number().int().min(1).default(3),
  /** How quickly a job whose worker died is noticed and handed to another worker. */
  JOB_STALLED_MS: z.coerce.number().int().min(1000).default(30_000),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).default(2),
  /** Queues this worker process serves (ops pools: `identify` on GPU nodes, `enrol,video` on CPU); default all. */
  WORKER_QUEUES: list.default([...QUEUES]),
  /** Per-queue concurrency, `identify=4,video=1`; unnamed queues get WORKER_CONCURRENCY. */
  QUEUE_CONCURRENCY: z.string().default(''),
  /** Fairness: jobs of one account running at once per queue, across all workers (0 = no cap). */
  ACCOUNT_INFLIGHT_CAP: z.coerce.number().int().min(0).default(2),
  /** Quota: units of work (a job; a whole fruit batch is one) one account may have waiting or running (0 = no quota); past it, 429. */
  ACCOUNT_QUEUED_QUOTA: z.coerce.number().int().min(0).default(200),
  /**
   * Embedded mode: job-host threads running the job handlers (shared/src/jobs/thread-host.ts), so
   * jobs' own work (ranking, verification bookkeeping, database round trips) runs on several threads
   * at once; default 2 from 4 cores up, 1 below (there the models are the limit). Several hosts
   * share one engine pool (ENGINE_POOL_SIZE threads, in an engine thread of their own). Distributed
   * mode runs one host per worker process.
   */
  JOB_HOSTS: z.coerce.number().int().min(1).max(16).optional(),
  /** Engine pool threads per job process (workers/src/engine-pool); default the cores. */
  ENGINE_POOL_SIZE: z.coerce.number().int().min(1).max(256).optional(),
  /** Most photos described in one batch (one session.run per model); default 8. */
  ENGINE_BATCH_SIZE: z.coerce.number().int().min(1).max(1024).optional(),
  /** How long a bulk photo waits for others to batch with (ms); interactive photos never wait; default 4. */
  ENGINE_LINGER_MS: z.coerce.number().int().min(0).max(10_000).optional(),
  /** Memory for enrolled photos' local features kept between identifies, per job process (MB; 0: none). */
  FEATURE_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(256),
  /**
   * Most held-out photos an owner's calibration fit identifies (each asked once or twice). More
   * photos vouch for a threshold nearer the true 1% false-match point (480 queries let the
   * Clopper–Pearson bound allow one false match, 1,200 six), and cost one identify each.
   */
  CALIBRATION_MAX_PHOTOS: z.coerce.number().int().min(50).max(100_000).default(600),
  /** Who may read GET /metrics on the API port: `admin` (token), `public`, or `off`. */
  METRICS_ACCESS: z.enum(['admin', 'public', 'off']).default('admin'),
  /** A separate port serving /metrics and /ready without auth (for Prometheus and probes); unset = none. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Retry-After (s) on the 503 answered while PostgreSQL, Redis or S3 is unreachable. */
  DEPENDENCY_RETRY_AFTER_S: z.coerce.number().int().min(1).default(5),
  TOKEN_TTL_S: z.coerce.number().int().min(60).default(43_200),
  /** Administrators pinned at start, each `<account id>` or `<username>:<account id>`; a bare name grants nothing. */
  ADMIN_USERS: list.default([]),
  SIGNUP_OPEN: bool.default(true),
  /** Failed sign-ups (a taken username) from one address before it is locked out of sign-up, with the login back-off. */
  SIGNUP_SOURCE_FAILURES: z.coerce.number().int().min(1).default(10),
  /** Least zxcvbn score (0–4) a new password must reach; 3 = about 10^8 guesses or more. */
  PASSWORD_MIN_SCORE: z.coerce.number().int().min(0).max(4).default(3),
  /** Sign-in throttle (login-throttle.ts): wrong passwords in a row from one address on one name before that address is locked for it. */
  LOGIN_FREE_FAILURES: z.coerce.number().int().min(1).default(5),
  /** Failures from one address across all names before the address is locked for all. */
  LOGIN_SOURCE_FAILURES: z.coerce.number().int().min(1).default(20),
  /** Failures on one name from all addresses before addresses that failed are slowed (clean ones never are). */
  LOGIN_ACCOUNT_FAILURES: z.coerce.number().int().min(1).default(10),
  /** Longest lock of the exponential back-off (30 s, 60 s, ...). */
  LOGIN_MAX_LOCK_S: z.coerce.number().int().min(1).default(900),
  CODE_PREFIX: z
    .string()
    .regex(/^[A-Z]{2,6}$/)
    .default('MKL'),
  RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(600),
  DID_CHALLENGE_PER_MIN: z.coerce.number().int().min(1).default(10),
  DID_CHALLENGE_TTL_S: z.coerce.number().int().min(10).default(300),
  TRUST_PROXY: bool.default(false),
  /** Proxies of ours in front of the API: the client address is this many X-Forwarded-For entries from the RIGHT. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  /** Video limits, checked with ffprobe before any decoding (422 naming the limit). */
  VIDEO_MAX_SECONDS: z.coerce.number().min(1).default(120),
  VIDEO_MAX_PIXELS: z.coerce
    .number()
    .int()
    .min(64 * 64)
    .default(1920 * 1080),
  VIDEO_MAX_FRAMES_DECODED: z.coerce.number().int().min(1).default(600),
  /**
   * How many looks the survey's detector takes at a frame (workers/src/survey/views.ts): `all` (the
   * whole frame, mirrored, and tiles of a wide frame; about twice the work) or `whole` (one look).
   */
  SURVEY_DETECT_LOOKS: z.enum(['all', 'whole']).default('all'),
  /** Seconds a blob row may exist with nothing referring to it before the orphan sweep removes it. */
  ORPHAN_BLOB_GRACE_S: z.coerce.number().int().min(1).default(3600),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  COMMIT: z.string().optional(),
  SPECIES_CATALOG: z.string().optional(),
  /** Where chain roots are anchored: `local` (signed checkpoint log, the default) or `cardano`. */
  ANCHOR_BACKEND: z.enum(['local', 'cardano']).default('local'),
  /**
   * PEM file of the local backend's Ed25519 key; default DATA_DIR/anchor-key.pem, created on first use.
   * In distributed mode every API and worker process must read the same file (e.g. a mounted secret).
   */
  ANCHOR_KEY_FILE: z.string().optional(),
  /** The operator's models folder (also read by the model registry); `POST /api/admin/models` takes candidates only from inside it or the bundled models/. */
  MODELS_DIR: z.string().optional(),
  /** Blockfrost-compatible API base URL (needed when ANCHOR_BACKEND=cardano). */
  CARDANO_API_URL: z.string().url().optional(),
  /** Sent as the `project_id` header. */
  CARDANO_API_KEY: z.string().optional(),
  CARDANO_NETWORK: z.enum(['mainnet', 'preprod', 'preview']).default('preprod'),
  /** Hex Ed25519 key paying anchor fees: 64 hex (normal key) or 128 hex (extended key). */
  CARDANO_SIGNING_KEY: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{128})$/)
    .optional(),
  CARDANO_CONFIRMATIONS: z.coerce.number().int().min(1).default(6),
  /** Explorer link prefix; the transaction hash is appended. Default: cardanoscan for the network. */
  CARDANO_EXPLORER_URL: z.string().url().optional(),
  /** Least seconds between two confirmation polls of one submitted anchor. */
  CARDANO_POLL_S: z.coerce.number().int().min(0).default(20),
  /** Validity window of every Cardano anchor transaction (its TTL, in 1-second slots): one not in a block by then can never land, and is marked failed. */
  CARDANO_TX_TIMEOUT_S: z.coerce.number().int().min(60).default(3600),
  /** Kubo RPC API (e.g. http://127.0.0.1:5001); when set, record images and records are pinned there. */
  KUBO_API_URL: z.string().url().optional(),
  /**
   * Off by default, as on the live service: fruit photos and farm boundaries stay on this server
   * (no canonical record, no pinning, nothing anchorable). On: each gets a DAG-CBOR record and a
   * seq-0 event on its entity's chain, and is pinned when KUBO_API_URL is set.
   */
  EVIDENCE_FRUIT_AND_BOUNDARIES: bool.default(false),
  /** With lat/lon, /api/identify/auto searches trees and fruit enrolled within this radius (or with no location). */
  AUTO_NEAR_KM: z.coerce.number().min(0.1).max(1000).default(5),
  /** Care: OCR of packaging photos, `tesseract` (Debian's tesseract-ocr CLI) or `none` (reason ocr_unavailable). */
  OCR_ENGINE: z.enum(['tesseract', 'none']).default('tesseract'),
  /**
   * The test suite only: `deterministic` describes photos with a hash-derived embedding and no
   * keypoints (workers/src/vision/testing/deterministic-engine.ts) for stories that are not about
   * recognition. Refused outside vitest, so no deployment can run it.
   */
  MARKLESS_TEST_ENGINE: z.enum(['deterministic']).optional(),
  TESSERACT_BIN: z.string().default('tesseract'),
  TESSERACT_LANGS: z
    .string()
    .regex(/^[a-z_]+(\+[a-z_]+)*$/)
    .default('vie+eng'),
  OCR_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** Label photos read by OCR at once on this API process, and for one account; past either, 429 with Retry-After. */
  OCR_MAX_CONCURRENT: z.coerce.number().int().min(1).default(2),
  OCR_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).default(1),
  /** A label photo's longer side is brought down to this many pixels before OCR: enough for printed text, bounded work. */
  OCR_MAX_SIDE: z.coerce.number().int().min(800).max(10_000).default(2400),
  /** Care data files (default shared/data/care/banned.json, products.json); unreadable banned file → banned_check `unavailable`. */
  CARE_BANNED_FILE: z.string().optional(),
  CARE_PRODUCTS_FILE: z.string().optional(),
  /** Residue: limits file (default shared/data/residue/mrls.json) and the external measurement store of stamps. */
  RESIDUE_MRL_FILE: z.string().optional(),
  RESIDUE_STORE_URL: z.string().url().optional(),
  RESIDUE_STORE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** Most photos one fruit batch (POST /api/fruit/batch) may hold, files and archive entries together. */
  BATCH_MAX_PHOTOS: z.coerce.number().int().min(1).max(100_000).default(500),
  /**
   * Most views (photos) of one fruit in a batch; a fruit with more fails its own row. At most 10,
   * the photos one identify query takes, so a batch row decides exactly as identify would.
   */
  BATCH_MAX_VIEWS: z.coerce.number().int().min(1).max(10).default(8),
  /** Largest fruit batch request body, in bytes; default the spec's 64 MB image-batch limit. */
  BATCH_MAX_BYTES: z.coerce.number().int().min(1_000_000).default(64_000_000),
  /** Archives (zip bombs): most entries read, most bytes really inflated in all, highest compression ratio of an entry over 1 MB. */
  ARCHIVE_MAX_ENTRIES: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  ARCHIVE_MAX_INFLATED_BYTES: z.coerce.number().int().min(1_000_000).default(128_000_000),
  ARCHIVE_MAX_RATIO: z.coerce.number().min(2).default(100),
  /** Most pixels (width × height × frames) of an image, read from its header before anything decodes it. */
  IMAGE_MAX_PIXELS: z.coerce
    .number()
    .int()
    .min(64 * 64)
    .default(50_000_000),
  /** How often the batch events stream (SSE) looks for progress, in ms. */
  BATCH_EVENTS_POLL_MS: z.coerce.number().int().min(20).default(250),
  /** Public fruit lookup and scan: requests per minute per client IP (the IP is counted, never stored). */
  FRUIT_PUBLIC_PER_MIN: z.coerce.number().int().min(1).default(30),
  /** How long a point-of-sale fruit scan token can be used to choose, in seconds. */
  FRUIT_SCAN_TTL_S: z.coerce.number().int().min(10).default(600),
  /** Pending events from non-owners one entity may hold at once, all authors together (past it, 429). */
  TIMELINE_PENDING_MAX_PER_ENTITY: z.coerce.number().int().min(1).default(100),
  /** Bytes (UTF-8 JSON bodies) of pending non-owner events one entity may hold at once, all authors together. */
  TIMELINE_PENDING_MAX_BYTES_PER_ENTITY: z.coerce.number().int().min(16_384).default(262_144),
  /** Open progress streams (SSE) per fruit batch; past it, 429 with Retry-After. */
  SSE_MAX_PER_BATCH: z.coerce.number().int().min(1).default(4),
  /** Open progress streams (SSE) per survey; past it, 429 with Retry-After. */
  SSE_MAX_PER_SURVEY: z.coerce.number().int().min(1).default(4),
  /** Open progress streams (SSE) per account, all its batches and surveys together; past it, 429 with Retry-After. */
  SSE_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).default(8),
  /**
   * The learning loop (issue 23): after this many new enrolled photos or identify_verdict labels
   * of one owner and kind, its training job is queued on the bulk lane (0: never by itself).
   */
  LEARN_AFTER_NEW: z.coerce.number().int().min(0).default(50),
  /**
   * The calibration pooled across owners (docs/recognition.md): every owner's labelled answers'
   * scores fit a calibration that serves owners whose own photos cannot vouch yet. `false`: no
   * samples are gathered, no fit is made and none serves.
   */
  CALIBRATION_POOLING: bool.default(true),
  /** Seconds between pooled fits (the job also runs on an operator's request); 0: only on request. */
  CALIBRATION_POOL_INTERVAL_S: z.coerce.number().int().min(0).default(21_600),
  /** Fewest independent owners a pooled fit rests on. */
  CALIBRATION_POOL_MIN_OWNERS: z.coerce.number().int().min(2).default(3),
  /** Most samples one owner contributes to a cell, per number of photos (the newest). */
  CALIBRATION_POOL_MAX_PER_OWNER: z.coerce.number().int().min(10).default(300),
  /** Share of each owner's newest samples the fit does not read, to shadow-score it before it serves (0: none). */
  CALIBRATION_POOL_SHADOW_SHARE: z.coerce.number().min(0).max(0.5).default(0.2),
  /** Promote a shadow fit that keeps its bound on the held-back answers without an operator. */
  CALIBRATION_POOL_AUTO_PROMOTE: bool.default(true),
});

export type Env = z.infer<typeof EnvSchema>;

/** Validated configuration, with paths resolved and derived choices made. */
export interface Config extends Env {
  dataDir: string;
  dbDir: string;
  blobDir: string;
  indexDir: string;
  commit: string;
  speciesCatalogPath: string;
  /** ANCHOR_KEY_FILE, resolved (default DATA_DIR/anchor-key.pem). */
  anchorKeyFile: string;
  /** WORKER_QUEUES, validated. */
  workerQueues: QueueName[];
  /** QUEUE_CONCURRENCY with WORKER_CONCURRENCY filled in. */
  queueConcurrency: Record<QueueName, number>;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

function gitCommit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Parse the environment once. Fails with the full list of bad variables, not just the first,
 * so an operator fixes everything in one go.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.MODE === 'distributed') {
    if (!e.DATABASE_URL) problems.push('DATABASE_URL: required in distributed mode');
    if (!e.REDIS_URL) problems.push('REDIS_URL: required in distributed mode');
    if (!e.S3_ENDPOINT) problems.push('S3_ENDPOINT: required in distributed mode');
  }
  if (e.ANCHOR_BACKEND === 'cardano') {
    if (!e.CARDANO_API_URL) problems.push('CARDANO_API_URL: required when ANCHOR_BACKEND=cardano');
    if (!e.CARDANO_SIGNING_KEY) problems.push('CARDANO_SIGNING_KEY: required when ANCHOR_BACKEND=cardano');
  }
  if (e.MARKLESS_TEST_ENGINE && !process.env.VITEST)
    problems.push('MARKLESS_TEST_ENGINE: only the test suite (vitest) may choose a test engine');
  const badQueues = e.WORKER_QUEUES.filter((q) => !isQueueName(q));
  if (badQueues.length) problems.push(`WORKER_QUEUES: unknown queue(s) ${badQueues.join(', ')} (queues: ${QUEUES.join(', ')})`);
  let queueConcurrency = {} as Record<QueueName, number>;
  try {
    queueConcurrency = parseConcurrency(e.QUEUE_CONCURRENCY, e.WORKER_CONCURRENCY);
  } catch (err) {
    problems.push(`QUEUE_CONCURRENCY: ${(err as Error).message}`);
  }
  if (problems.length) throw new ConfigError(problems);
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    ...e,
    dataDir,
    dbDir: path.join(dataDir, 'db'),
    blobDir: path.join(dataDir, 'blobs'),
    indexDir: path.join(dataDir, 'index'),
    commit: e.COMMIT ?? gitCommit(),
    speciesCatalogPath: e.SPECIES_CATALOG ?? path.resolve('shared/data/species-catalog.json'),
    anchorKeyFile: path.resolve(e.ANCHOR_KEY_FILE ?? path.join(dataDir, 'anchor-key.pem')),
    workerQueues: e.WORKER_QUEUES as QueueName[],
    queueConcurrency,
  };
}
