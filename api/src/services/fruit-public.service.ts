import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { JobQueue } from '../../../shared/src/ports/queue.port.js';
import type { RateLimitStore } from '../../../shared/src/ports/rate-limit.port.js';
import type { FruitPublicRepo, FruitScanTokenRow, PublicFruitRow } from '../../../shared/src/repos/fruit-public.repo.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { enforceRateLimit } from '../middleware/rate-limit.js';
import { jobFailure } from './jobs.service.js';
import type { MediaService } from './media.service.js';
import type { TreesService } from './trees.service.js';

/** Spec section 8: a public lookup answers at most this many candidates. */
export const LOOKUP_MAX = 5;
/** Photos shown per candidate in a list; the chosen fruit's provenance shows up to PROVENANCE_PHOTOS. */
const CANDIDATE_PHOTOS = 3;
const PROVENANCE_PHOTOS = 12;

export interface PublicPhoto {
  image_id: string;
  cid: string;
  url: string;
}
/** A public tree the fruit hangs on; only ever present when that tree's owner published it. */
export interface PublicTree {
  tree_id: string;
  code: string | null;
  link: string | null;
}
/** How far the verdict vouches for a candidate (workers/src/handlers/fruit-public.handler.ts). */
export type PublicConfidence = 'match' | 'possible' | 'unlikely';
export type PublicVerdict = 'match' | 'uncertain' | 'no_match';
export interface PublicCandidate {
  fruit_id: string;
  probability: number;
  confidence: PublicConfidence;
  species: string | null;
  name: string | null;
  photos: PublicPhoto[];
  tree: PublicTree | null;
}
/** A public lookup's answer: the calibrated verdict, whether the photo is a fruit at all, and the candidates. */
export interface PublicAnswer {
  verdict: PublicVerdict;
  /** The detector found an animal in the photo: no fruit is offered. */
  not_fruit: boolean;
  /** What the detector found instead (a COCO label such as "cow"); null for a fruit photo. */
  seen: string | null;
  /** Whether a calibration vouched for a `match` here; when not, a match is withheld and the closest are `possible` at best. */
  match_vouched: boolean;
  candidates: PublicCandidate[];
}

interface RankedRaw {
  fruit_id: string;
  probability: number;
  confidence?: PublicConfidence;
  image_ids: string[];
}

/**
 * The verdict over the candidates still public at answer time: one that vouched for a fruit
 * unpublished meanwhile says no more than what is left (a `match` gone is never passed to the
 * next fruit down, and an `uncertain` with none of its list left is a `no_match`).
 */
export function answerFor<C extends { confidence: PublicConfidence }>(
  verdict: PublicVerdict | undefined,
  live: C[],
): { verdict: PublicVerdict; candidates: C[] } {
  if (verdict === 'match' && live[0]?.confidence === 'match') return { verdict, candidates: live };
  const candidates = live.map((c) => (c.confidence === 'match' ? { ...c, confidence: 'unlikely' as const } : c));
  return { verdict: verdict !== 'no_match' && candidates.some((c) => c.confidence === 'possible') ? 'uncertain' : 'no_match', candidates };
}

const photoUrl = (cid: string) => `/api/blobs/${cid}`;
const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');

/** What the public fruit routes use. */
export interface FruitPublicDeps {
  db: Queryable;
  fruit: Pick<
    FruitPublicRepo,
    'publicFruit' | 'photos' | 'photoCount' | 'latestRecord' | 'insertToken' | 'sweepTokens' | 'token' | 'choose'
  >;
  media: Pick<MediaService, 'withUploads'>;
  trees: Pick<TreesService, 'setVisibility'>;
  queue: Pick<JobQueue, 'enqueue' | 'waitFor'>;
  rateLimits: RateLimitStore;
  /** Deletes the blobs among `cids` that nothing refers to any more (fruit-batch.repo's dropUnusedBlobs). */
  dropBlobs: (cids: readonly string[]) => Promise<void>;
  logger: Pick<Logger, 'error'>;
  /** JOB_WAIT_MS, FRUIT_SCAN_TTL_S and FRUIT_PUBLIC_PER_MIN. */
  settings: { jobWaitMs: number; scanTtlS: number; perMinute: number };
}

/**
 * The public fruit routes (spec section 1 rules 3 and 5): lookup, the point-of-sale scan with
 * its single-use token, and the owner's publish switch. No account, and nothing about the caller
 * is kept: the photo is deleted once ranked, tokens carry no caller data, nothing is logged but
 * the path. Every answer is re-checked against the fruit's visibility at answer time, so a fruit
 * unpublished while a job ran never appears, and a private tree is never linked.
 */
export function createFruitPublicService(deps: FruitPublicDeps) {
  const { db, fruit, queue, settings } = deps;

  /** The public fruit among `ids`, with its tree only when that tree is public too. */
  async function publicFruit(ids: string[]): Promise<Map<string, PublicFruitRow>> {
    return new Map((await fruit.publicFruit(db, ids)).map((x) => [x.id, x]));
  }

  async function photosOf(fruitId: string, preferred: string[], max: number): Promise<PublicPhoto[]> {
    return (await fruit.photos(db, fruitId, preferred, max)).map((x) => ({ image_id: x.id, cid: x.cid, url: photoUrl(x.cid) }));
  }

  const treeOf = (f: PublicFruitRow): PublicTree | null =>
    f.tree_public && f.tree_id ? { tree_id: f.tree_id, code: f.code, link: f.code ? `/t/${encodeURIComponent(f.code)}` : null } : null;

  /**
   * Rank the public fruit for one photo through the worker. The photo is stored only while the
   * job needs it. A queue too busy to answer within JOB_WAIT_MS is a 429 with Retry-After (the
   * client keeps its photo and resends); the photo is still deleted once that job ends.
   */
  async function rank(file: UploadedFile | undefined): Promise<PublicAnswer> {
    const created: string[] = [];
    const raw = await deps.media
      .withUploads(file ? [file] : [], 'image', 'files', async ([m]) => {
        // Only bytes this request wrote may go afterwards: a photo that was already stored (an
        // owner's identify or care photo sent again by anyone) is never this public route's to delete.
        if (m!.created) created.push(m!.cid);
        const id = await queue.enqueue('fruit_lookup', { query_id: randomUUID(), images: [m!.cid], limit: LOOKUP_MAX });
        const rec = await queue.waitFor(id, settings.jobWaitMs);
        if (!rec || (rec.state !== 'completed' && rec.state !== 'failed')) {
          // The job still holds the photo: delete it once the job ends, not now.
          const later = created.splice(0);
          void queue
            .waitFor(id, 10 * 60_000)
            .catch(() => null)
            .then(() => deps.dropBlobs(later))
            .catch(() => undefined);
          throw ERRORS.rateLimited(Math.max(1, Math.ceil(settings.jobWaitMs / 1000)));
        }
        if (rec.state === 'failed') throw jobFailure(rec);
        return (rec.result ?? {}) as Partial<Omit<PublicAnswer, 'candidates'>> & { candidates?: RankedRaw[] };
      })
      .finally(() => deps.dropBlobs(created).catch((err) => deps.logger.error({ err }, 'public photo clean-up failed')));
    const ranked = raw.candidates ?? [];
    const live = await publicFruit(ranked.map((x) => x.fruit_id));
    const out: PublicCandidate[] = [];
    for (const x of ranked.slice(0, LOOKUP_MAX)) {
      const f = live.get(x.fruit_id);
      if (!f) continue;
      // A job result without a confidence (one queued before this answer had one) vouches for nothing.
      const confidence = x.confidence ?? 'unlikely';
      out.push({
        fruit_id: f.id,
        probability: x.probability,
        confidence,
        species: f.species,
        name: f.name,
        photos: await photosOf(f.id, x.image_ids, CANDIDATE_PHOTOS),
        tree: treeOf(f),
      });
    }
    return {
      ...answerFor(raw.verdict, out),
      not_fruit: raw.not_fruit === true,
      seen: raw.not_fruit ? (raw.seen ?? null) : null,
      match_vouched: raw.match_vouched === true,
    };
  }

  /** The public provenance of one fruit: what its owner chose to show, nothing about the owner. */
  async function provenance(fruitId: string) {
    const f = (await publicFruit([fruitId])).get(fruitId);
    if (!f) throw ERRORS.notFound();
    const [count, r] = await Promise.all([fruit.photoCount(db, fruitId), fruit.latestRecord(db, fruitId)]);
    return {
      fruit_id: f.id,
      species: f.species,
      name: f.name,
      enrolled_at: f.created_at.toISOString(),
      image_count: count,
      photos: await photosOf(f.id, [], PROVENANCE_PHOTOS),
      tree: treeOf(f),
      evidence: r ? ('recorded' as const) : ('server_only' as const),
      ...(r ? { record_cid: r.record_cid, record_hash: r.record_hash } : {}),
    };
  }

  /** Why a token cannot be used, in the order a person can act on it. */
  function tokenProblem(row: Omit<FruitScanTokenRow, 'candidates'> | null): AppError | null {
    if (!row) return new AppError(400, 'fruit_scan_token_invalid', { field: 'scan_token' });
    if (row.consumed_at) return new AppError(400, 'fruit_scan_token_used', { field: 'scan_token' });
    if (row.expires_at.getTime() <= Date.now()) return new AppError(400, 'fruit_scan_token_expired', { field: 'scan_token' });
    return null;
  }

  return {
    /** The public routes' own budget per client. The IP is hashed, and the count expires with its one-minute window. */
    async throttle(ip: string): Promise<void> {
      const key = `fruit-public:${createHash('sha256').update(ip).digest('hex').slice(0, 24)}`;
      await enforceRateLimit(deps.rateLimits, key, settings.perMinute, 60_000);
    },
    lookup: rank,
    provenance,

    /** Rank, then issue a single-use token bound to these candidates and nothing else. */
    async scan(file: UploadedFile | undefined) {
      const answer = await rank(file);
      const { candidates } = answer;
      const token = randomBytes(24).toString('base64url');
      const expires = new Date(Date.now() + settings.scanTtlS * 1000);
      await fruit.insertToken(db, { hash: hashToken(token), candidates: candidates.map((x) => x.fruit_id), expiresAt: expires });
      // Tokens a day past expiry can only ever answer "invalid"; sweeping here needs no timer.
      await fruit.sweepTokens(db);
      return { ...answer, scan_token: token, expires_at: expires.toISOString() };
    },

    /**
     * issued → chosen, once. Unknown, used and expired tokens, and a fruit the scan did not offer,
     * are 400s with their own codes and leave the token as it was (a wrong pick can be corrected).
     */
    async choose(token: string, fruitId: string) {
      const hash = hashToken(token);
      const row = await fruit.token(db, hash);
      const problem = tokenProblem(row);
      if (problem) throw problem;
      if (!row!.candidates.includes(fruitId.toLowerCase())) throw new AppError(400, 'fruit_scan_not_offered', { field: 'fruit_id' });
      // Unpublished since the scan: the same 404 as a fruit that never existed; the token stays usable.
      const out = await provenance(fruitId.toLowerCase());
      if (!(await fruit.choose(db, hash, fruitId.toLowerCase()))) {
        // Lost a race with another choice, or expired in between: say which.
        throw tokenProblem(await fruit.token(db, hash)) ?? ERRORS.internal();
      }
      return out;
    },

    /** Owners publish and unpublish fruit as they do trees (the same owner-only access check). */
    async setVisibility(callerId: string, fruitId: string, visibility: 'public' | 'private') {
      const v = await deps.trees.setVisibility(callerId, fruitId, visibility, 'fruit');
      return { fruit_id: v.tree_id, visibility: v.visibility };
    },
  };
}

export type FruitPublicService = ReturnType<typeof createFruitPublicService>;
