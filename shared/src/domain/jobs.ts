import { z } from 'zod';

/**
 * The one typed catalogue of jobs. Payloads carry ids and content addresses, never bytes:
 * the bytes are already in the blob store when a job is enqueued, so any worker can pick it up
 * and a retry sees exactly the same input.
 */
export const Kind = z.enum(['tree', 'fruit', 'animal']);
export type Kind = z.infer<typeof Kind>;

const Cid = z.string().min(10).max(200);
const Uuid = z.string().uuid();

export const jobCatalog = {
  /** Describe the photos of one individual and add them to its owner's pool. */
  enroll: z.object({
    owner_id: Uuid,
    individual_id: Uuid,
    kind: Kind,
    /** True when this job creates the individual; false when it adds views to an existing one. */
    create: z.boolean(),
    attrs: z.record(z.string(), z.unknown()).default({}),
    images: z.array(z.object({ cid: Cid, source: z.string().default('enroll'), filename: z.string().max(255).default('') })).min(1),
    /** The owner accepts the warnings (dark, blurred, near-identical): those photos are kept. */
    accept_warnings: z.boolean().optional(),
    /** Refusals the API found before storing (duplicates), answered together with the worker's own. */
    refused: z
      .array(z.object({ index: z.number().int(), filename: z.string(), reasons: z.array(z.string()), warning: z.boolean() }))
      .optional(),
  }),
  /** Identify one individual from one or several photos (several frames are fused). */
  identify: z.object({
    owner_id: Uuid,
    query_id: Uuid,
    kind: Kind,
    images: z.array(Cid).min(1),
    filters: z.object({ farm_id: z.string().optional(), tree_id: z.string().optional(), species: z.string().optional() }).default({}),
    channels: z.array(z.enum(['body', 'face', 'bio'])).optional(),
  }),
  /**
   * Animal species decision (spec "detect rules", shared/src/domain/animal-species.ts): run the
   * object detector over the photo when the farm has several species, decide, and with
   * `identify` go on to identify within the decided (or narrowed) species.
   */
  animal_species: z.object({
    owner_id: Uuid,
    images: z.array(Cid).length(1),
    farm_id: z.string().max(100).optional(),
    /** The farm's species: catalogue id (or the stored name when not catalogued), detector class, stored spellings. */
    farm: z
      .array(
        z.object({
          id: z.string().max(100),
          detector_class: z.string().max(50).nullable(),
          spellings: z.array(z.string().max(100)).max(50),
        }),
      )
      .max(200),
    groups: z
      .array(z.array(z.string().max(100)))
      .max(100)
      .default([]),
    catalogue: z.array(z.string().max(100)).max(500).default([]),
    /** Present for scans: the query id under which the identification is stored. */
    identify: z.object({ query_id: Uuid, channels: z.array(z.enum(['body', 'face', 'bio'])).optional() }).optional(),
  }),
  /**
   * Identify without saying what the photo shows: every kind the caller has enrolled is tried,
   * and only a `match` picks the lane (see workers/src/handlers/auto.handler.ts).
   */
  identify_auto: z.object({
    owner_id: Uuid,
    query_id: Uuid,
    images: z.array(Cid).min(1),
    /** Where the photo was taken: narrows trees and fruit to those enrolled nearby (or without a location). */
    near: z.object({ lat: z.number().min(-90).max(90), lon: z.number().min(-180).max(180) }).optional(),
  }),
  /** Pull frames out of a stored video, then identify or enrol from them. */
  video: z.object({
    owner_id: Uuid,
    video_cid: Cid,
    kind: Kind,
    purpose: z.enum(['identify', 'add_views']),
    individual_id: Uuid.optional(),
    query_id: Uuid.optional(),
    max_frames: z.number().int().min(1).max(64).default(8),
    filters: z.record(z.string(), z.string()).default({}),
  }),
  /**
   * Survey a drone or phone video (api/src/services/survey.service.ts, workers/src/survey): detect,
   * track and count the animals (identifying each track) or the fruit on a tree. Writes progress
   * and the result to the `surveys` row; a retry starts over from the first frame.
   */
  survey: z.object({
    owner_id: Uuid,
    survey_id: Uuid,
    video_cid: Cid,
    kind: z.enum(['animal', 'fruit']),
    species: z.string().max(100).optional(),
    farm_id: z.string().max(100).optional(),
    tree_id: Uuid.optional(),
    zone: z.string().max(100),
    /** Frames per second read from the video (sampling; the tracker runs on every read frame). */
    fps: z.number().min(1).max(30).default(10),
  }),
  /** Re-embed an owner's images with the current model and rebuild the owner's index. */
  reindex: z.object({ owner_id: Uuid.optional(), model_version: z.string().min(1) }),
  /**
   * Public fruit lookup and point-of-sale scan (no account): rank the fruit owners made public.
   * Queue lane: identify. Nothing about the caller is stored; the API deletes the photo after.
   */
  fruit_lookup: z.object({ query_id: Uuid, images: z.array(Cid).min(1).max(1), limit: z.number().int().min(1).max(5).default(5) }),
  /**
   * Identify one fruit of a packing-house batch from its views and fill its row (api/src/services/fruit-batch.service.ts).
   * Queue lane: batch. Only a `pending` row is written, so a retried job never counts twice.
   */
  fruit_batch_item: z.object({
    owner_id: Uuid,
    batch_id: Uuid,
    index: z.number().int().min(0),
    /** The fruit's first stored view; the handler reads every view from the row (fruit_batch_views). */
    cid: Cid,
    filters: z.object({ farm_id: z.string().optional(), tree_id: z.string().optional() }).default({}),
  }),
  /**
   * Train the owner's metric for one kind from its labelled photos (enrolled individuals and
   * identify_verdict labels); adopted only when it beats the current one (workers/src/learn).
   * `recipe`: `linear` (a metric over the base embedding, default) or `backbone` (fine-tune the
   * network itself; animals, needs python3-torch on the worker).
   */
  train_metric: z.object({ owner_id: Uuid, kind: Kind, recipe: z.enum(['linear', 'backbone']).optional() }),
  /**
   * Register a candidate model (issue 17): check it, copy it under DATA_DIR/models, embed every
   * photo with it, then score in shadow. A job, so the API process never loads a model (issue 22).
   * Queue lane: reindex. Refused models fail with `model_refused` (422) and its reason.
   */
  model_register: z.object({ dir: z.string().min(1).max(1000), shadow_share: z.number().min(0).max(1) }),
  /**
   * Fit the calibration pooled across owners (workers/src/recognition/pool-calibration.ts): gather
   * the scores of new labelled answers, fit each cell, shadow-score and promote. Queue lane: reindex.
   */
  calibration_pool: z.object({ requested_by: z.string().max(100).optional() }),
  /** Anchor an entity chain's current root with the configured backend. */
  anchor: z.object({
    owner_id: Uuid,
    entity_type: z.string().min(1),
    entity_id: z.string().min(1),
    event_id: z.string().min(1),
  }),
} as const;

export type JobName = keyof typeof jobCatalog;
export const jobNames = Object.keys(jobCatalog) as JobName[];
export type JobPayload<N extends JobName> = z.input<(typeof jobCatalog)[N]>;
export type JobData<N extends JobName> = z.output<(typeof jobCatalog)[N]>;
/** Job results are plain JSON objects: they travel through Redis and the jobs table. */
export type JobResult<_N extends JobName = JobName> = Record<string, unknown>;

export interface JobContext {
  id: string;
  /** 1 on the first run, 2 on the first retry, and so on. */
  attempt: number;
}

export type JobHandler<N extends JobName> = (data: JobData<N>, ctx: JobContext) => Promise<JobResult<N>>;
export type JobHandlers = { [N in JobName]: JobHandler<N> };

/** Refuse to start when a catalogued job has no handler: a job nobody runs would hang forever. */
export function assertHandlers(handlers: Partial<Record<string, unknown>>): asserts handlers is JobHandlers {
  const missing = jobNames.filter((n) => typeof handlers[n] !== 'function');
  if (missing.length) throw new Error(`no handler registered for job(s): ${missing.join(', ')}`);
}

/** Validate a payload against the catalogue; the queue calls this before storing anything. */
export function parsePayload<N extends JobName>(name: N, data: unknown): JobData<N> {
  return jobCatalog[name].parse(data) as JobData<N>;
}
