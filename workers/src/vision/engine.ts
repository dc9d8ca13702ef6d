/**
 * The recognition engine façade: `describe` turns photo bytes into a stored
 * descriptor; `identify` ranks enrolled individuals for one or more query
 * descriptors (e.g. video frames) and returns a calibrated verdict.
 *
 * Pipeline: global embedding → HNSW shortlist (the caller's gallery, already
 * scoped to owner / kind / farm / tree) → keypoint verification with
 * homography inliers, down-weighting keypoints that match several different
 * individuals (repeated scene background) → per-individual evidence →
 * calibrated probability → `match` | `uncertain` | `no_match`.
 *
 * Typical use from a job handler:
 * ```ts
 * const engine = await RecognitionEngine.create();            // once per process
 * const d = await engine.describe(bytes, { kind: 'tree' });    // enrol: store d.global, d.local, d.model
 * const { index } = await openOwnerIndex({ root, ownerId, modelVersion: engine.model.version,
 *   dim: engine.dim, expected, loadRows });                    // index/owner-index.ts
 * const gallery = new IndexedGallery(index, { kind: 'tree', farmId }, loadLocalFeaturesFromDb);
 * const res = await engine.identify({ kind: 'tree', queries: [d], gallery });
 * // res.verdict: 'match' | 'uncertain' | 'no_match'; res.candidates[i].probability, .imageIds
 * ```
 * Errors: `describe` throws `UndecodableImageError` (unrecoverable: do not
 * retry) or `UnusableImageError` (with `reasons`); `identify` throws when a
 * descriptor comes from another model version (re-embed first).
 */
import { DEFAULT_CALIBRATION, probability, type CalibrationParams, type Evidence } from './calibrate.js';
import { shippedCalibration, type PoolFacts } from './kind-calibration.js';
import { decide, decideSeveral, guardVerdict, type Verdict } from './decide.js';
import { loadEmbedder, type Embedder, type ModelRef, type Provider } from './embed.js';
import { decodeImage, downscale, measureQuality, UnusableImageError, type DecodedImage, type QualityReport } from './intake.js';
import { describeLocalMany, verifyLocal } from './local-features.js';
import { registry, type ModelRegistry } from './registry.js';
import { evidenceFor, settingsFor, type Channel, type Kind, type KindSettings } from './settings.js';
import { isolateSubject, type SubjectReport, type SubjectRequest } from './subject.js';

export { NoSubjectError, type SubjectReport, type SubjectRequest } from './subject.js';

/**
 * Bumped whenever a change to the pipeline (not to a model file) changes what
 * is stored: a per-kind switch of extractor, crop policy or keypoint count
 * (p4: fruit moved from AKAZE to XFeat; p5: XFeat enlarges a small fruit photo at most three
 * times). Part of the engine's version, so a bump re-embeds like a model change.
 */
export const PIPELINE_REVISION = 'p5';

/** Everything stored for one enrolled or query image. */
export interface Descriptor {
  /**
   * The engine identity (global model name; version = global model version +
   * every registry model the pipeline runs + PIPELINE_REVISION); never compare across versions.
   */
  model: ModelRef;
  /** The registry models this descriptor actually came from (global, detector, local features). */
  models: ModelRef[];
  /** The animal that was described (box before the margin), or null when the whole photo was. */
  subject: SubjectReport | null;
  /** L2-normalised global embedding. */
  global: Float32Array;
  /** Packed local features (see keypoints.ts); store as bytea. */
  local: Uint8Array;
  quality: QualityReport;
  /** Decoded (EXIF-upright) size. */
  width: number;
  height: number;
  /**
   * Animals only, never stored: the photo at most PREVIEW_SIDE px long, for a gallery that
   * embeds queries with a model of its own (an owner's fine-tuned backbone, learn/gallery.ts).
   */
  preview?: DecodedImage;
}

/** Long side of `Descriptor.preview`. */
export const PREVIEW_SIDE = 640;

export interface DescribeOptions {
  kind: Kind;
  /** Throw UnusableImageError on failed quality checks (default true). */
  enforceQuality?: boolean;
  settings?: Partial<KindSettings>;
  /** Which subject to describe, and whether one is required (animal enrolment). */
  subject?: SubjectRequest;
}

/** Seconds spent per pipeline stage, summed over the photos of a call (for /metrics and benchmarks). */
export type StageTimings = Partial<Record<'decode' | 'detect' | 'embed' | 'local', number>>;

/** Runs `fn`, adding its wall time to `t[stage]` (a no-op clock when `t` is absent). */
function stageClock(t?: StageTimings) {
  return async <T>(stage: keyof StageTimings, fn: () => Promise<T>): Promise<T> => {
    if (!t) return fn();
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      t[stage] = (t[stage] ?? 0) + (performance.now() - t0) / 1000;
    }
  };
}

/** A shortlist hit from the caller's gallery. */
export interface GalleryHit {
  id: string;
  individualId: string;
  similarity: number;
  /** The cosine in an owner's fine-tuned backbone space, when one searched (for `learnedOrder`). */
  learned?: number;
}

/**
 * The caller's gallery, already scoped to the owner, kind, farm and tree.
 * The engine does not know about databases or index files.
 */
export interface GalleryLookup {
  /** Nearest enrolled images by global embedding, most similar first. */
  search(global: Float32Array, k: number, query?: Descriptor): Promise<GalleryHit[]> | GalleryHit[];
  /** Packed local features for enrolled image ids. */
  localFeatures(ids: readonly string[]): Promise<Map<string, Uint8Array>> | Map<string, Uint8Array>;
  /**
   * Set when `search` compares in a space learned from the owner's labelled photos
   * (workers/src/learn/gallery.ts); the engine reports it on the answer.
   */
  readonly learned?: ModelRef;
}

export interface IdentifyRequest {
  kind: Kind;
  /** Animal evidence channels; all evidence when omitted. */
  channels?: readonly Channel[];
  /** One or more descriptors of the same subject (photos, video frames), fused. */
  queries: readonly Descriptor[];
  gallery: GalleryLookup;
  settings?: Partial<KindSettings>;
  /** Calibration override (defaults to the engine's stored one for the kind). */
  calibration?: CalibrationParams;
  /**
   * The calibration that would decide without `calibration` (an owner's own fit may tighten the
   * serving order, never loosen it: recognition/owner-calibration.ts calibrationFor). A `match`
   * must pass it too; otherwise the answer is `uncertain`.
   */
  guard?: CalibrationParams | null;
}

export interface Candidate {
  individualId: string;
  /** Probability that the query shows this individual. */
  probability: number;
  evidence: Evidence;
  /** Enrolled image ids that supported it, best first (for showing photos). */
  imageIds: string[];
}

export interface IdentifyResult {
  verdict: Verdict;
  /** The match, or the short list for `uncertain`; empty for `no_match`. */
  candidates: Candidate[];
  /** All ranked candidates with their evidence (for benchmarks and labels). */
  ranked: Candidate[];
  model: ModelRef;
  /** The learned metric version the shortlist was searched with; null: the base embedding alone. */
  learned: ModelRef | null;
  /**
   * The first query's verified inlier pairs per enrolled image id, flat (query keypoint, gallery
   * keypoint, ...), as verification found them: review draws them instead of matching again.
   */
  pairs: Map<string, Int32Array>;
}

interface ImageScore {
  id: string;
  individualId: string;
  similarity: number;
  learned?: number;
  /** The individual's place in this query's shortlist (0 = first). */
  rank: number;
  inliers: Int32Array;
  spread: number;
  guarded: number;
  pairs?: Int32Array;
}

/** Verifies a query's local features against shortlisted gallery images (local-features.ts). */
export type LocalVerifier = typeof verifyLocal;

export class RecognitionEngine {
  /**
   * Where keypoint verification runs: on the caller's thread by default; the job host swaps in
   * the engine pool (pooled-engine.ts), so a job thread never spends its event loop on it.
   */
  verifier: LocalVerifier = verifyLocal;
  private readonly pipeline: ModelRef[];
  private readonly detectorRef?: ModelRef;
  private readonly xfeatRef?: ModelRef;

  private constructor(
    private readonly embedder: Embedder,
    private readonly calibrations: Partial<Record<Kind, CalibrationParams>>,
    models: ModelRegistry,
  ) {
    // The detector and local-feature models load lazily, on first use; their versions are known now.
    const ref = (e?: { name: string; version: string }): ModelRef | undefined => (e ? { name: e.name, version: e.version } : undefined);
    this.detectorRef = ref(models.pick('detector', 'animal'));
    this.xfeatRef = ref(models.pick('local-features', 'animal'));
    this.pipeline = [embedder.model, ...[this.detectorRef, this.xfeatRef].filter((m) => m !== undefined)];
  }

  /** Loads the embedding model (once per process) and stored calibrations. */
  static async create(
    opts: { embedder?: Embedder; calibration?: Partial<Record<Kind, CalibrationParams>>; registry?: ModelRegistry } = {},
  ): Promise<RecognitionEngine> {
    return new RecognitionEngine(opts.embedder ?? (await loadEmbedder()), opts.calibration ?? {}, opts.registry ?? registry());
  }

  /**
   * The engine's identity, stored on every descriptor row (`model`, `model_version`): a new
   * version of any model it runs, or a new PIPELINE_REVISION, re-embeds every photo.
   */
  get model(): ModelRef {
    const parts = this.pipeline.slice(1).map((m) => `${m.name}@${m.version}`);
    return { name: this.embedder.model.name, version: [this.embedder.model.version, ...parts, PIPELINE_REVISION].join('+') };
  }

  /** Every registry model the engine may run, with its version. */
  get models(): ModelRef[] {
    return this.pipeline.map((m) => ({ ...m }));
  }

  /** Global embedding dimension (for the index). */
  get dim(): number {
    return this.embedder.dim;
  }

  get provider(): Provider {
    return this.embedder.provider;
  }

  /**
   * The kind's calibration: one re-fitted from labels (`npm run calibrate -- --apply`), else the
   * one shipped for this engine version (models/calibration, kind-calibration.ts), else the
   * hand-set defaults. `pool`: what is known of the pool searched (its one species, its size),
   * for which a shipped calibration may hold a threshold of its own.
   */
  calibrationFor(kind: Kind, pool: PoolFacts = {}): CalibrationParams {
    return this.calibrations[kind] ?? shippedCalibration(kind, this.model.version, pool) ?? DEFAULT_CALIBRATION;
  }

  setCalibration(kind: Kind, params: CalibrationParams): void {
    this.calibrations[kind] = params;
  }

  /**
   * A view of this engine whose calibrations are its own: the engine is loaded once per process,
   * but calibrations are re-fitted per database, so each container sets them on its own view and
   * never on another container's.
   */
  withOwnCalibrations(): RecognitionEngine {
    return Object.create(this, { calibrations: { value: { ...this.calibrations } } }) as RecognitionEngine;
  }

  /**
   * Decodes, checks quality and computes both embeddings for one photo.
   * For a kind with subject isolation, the detected animal (or the requested one) is cropped first.
   * @throws UndecodableImageError (unrecoverable), UnusableImageError (with reasons), or
   *   NoSubjectError when `subject.require` and no animal is found.
   */
  async describe(bytes: Uint8Array, opts: DescribeOptions): Promise<Descriptor> {
    const [r] = await this.describeMany([{ bytes, opts }]);
    if (r instanceof Error) throw r;
    return r!;
  }

  /**
   * `describe` for several photos with one embedding run over all of them (batched inference,
   * workers/src/engine-pool): each result is what `describe` gives for that photo, or the error it
   * throws. `timings`, when given, accumulates seconds per stage (decode, detect, embed, local).
   */
  async describeMany(
    items: readonly { bytes: Uint8Array; opts: DescribeOptions }[],
    timings?: StageTimings,
  ): Promise<(Descriptor | Error)[]> {
    const clock = stageClock(timings);
    const prepared = await Promise.all(
      items.map(async ({ bytes, opts }) => {
        try {
          const s = settingsFor(opts.kind, opts.settings);
          const img = await clock('decode', () => decodeImage(bytes));
          const quality = await clock('decode', () => measureQuality(img, s.quality));
          if ((opts.enforceQuality ?? true) && quality.reasons.length > 0) throw new UnusableImageError(quality.reasons, quality);
          const { image, subject } = await clock('detect', () => isolateSubject(img, s, opts.subject));
          return { s, img, quality, image, subject, opts };
        } catch (err) {
          return err as Error;
        }
      }),
    );
    const ok = prepared.filter((p): p is Exclude<typeof p, Error> => !(p instanceof Error));
    const globals = await clock('embed', () => this.embedder.embed(ok.map((p) => p.image)));
    const locals = await clock('local', () => describeLocalMany(ok.map((p) => ({ img: p.image, s: p.s }))));
    let next = 0;
    const out: (Descriptor | Error)[] = [];
    for (const p of prepared) {
      if (p instanceof Error) {
        out.push(p);
        continue;
      }
      const global = globals[next]!;
      const local = locals[next++]!;
      try {
        if (local instanceof Error) throw local;
        const used = [this.embedder.model];
        if (p.subject?.score != null && this.detectorRef) used.push(this.detectorRef);
        if (p.s.local === 'xfeat' && this.xfeatRef) used.push(this.xfeatRef);
        const preview = p.opts.kind === 'animal' ? await downscale(p.img, PREVIEW_SIDE) : undefined;
        out.push({
          model: this.model,
          models: used,
          subject: p.subject,
          global,
          local,
          quality: p.quality,
          width: p.img.width,
          height: p.img.height,
          preview,
        });
      } catch (err) {
        out.push(err as Error);
      }
    }
    return out;
  }

  /** Ranks enrolled individuals for the queries and decides a verdict. */
  async identify(req: IdentifyRequest): Promise<IdentifyResult> {
    const s = settingsFor(req.kind, req.settings);
    const use = evidenceFor(req.kind, req.channels);
    for (const q of req.queries) {
      if (q.model.name !== this.model.name || q.model.version !== this.model.version) {
        throw new Error(`descriptor from ${q.model.name}@${q.model.version}, engine runs ${this.model.name}@${this.model.version}`);
      }
    }
    const perQuery: ImageScore[][] = [];
    for (const q of req.queries) perQuery.push(await this.scoreQuery(q, req.gallery, s, use.local));
    const cal = req.calibration ?? this.calibrationFor(req.kind);
    const ranked = orderByLearned(rankIndividuals(perQuery, cal, use.global), perQuery, s.learnedOrder);
    // Each photo ranked alone as well, for the several-photo rule (no new verification: the scores are reused).
    const perPhoto =
      perQuery.length > 1 ? perQuery.map((pq) => orderByLearned(rankIndividuals([pq], cal, use.global), [pq], s.learnedOrder)) : [];
    // The first two photos ranked as a pair: what the pairs' threshold vouches for (decide.ts).
    const firstPair =
      perQuery.length > 2
        ? orderByLearned(rankIndividuals(perQuery.slice(0, 2), cal, use.global), perQuery.slice(0, 2), s.learnedOrder)
        : undefined;
    const decided = perQuery.length > 1 ? decideSeveral(ranked, perPhoto, cal, 5, firstPair) : decide(ranked, cal);
    const { verdict, shown } = req.guard ? guardVerdict(decided, ranked, cal, req.guard, perQuery.length, 5, perPhoto) : decided;
    const pairs = new Map((perQuery[0] ?? []).flatMap((sc) => (sc.pairs?.length ? [[sc.id, sc.pairs] as [string, Int32Array]] : [])));
    return { verdict, candidates: shown, ranked, model: this.model, learned: req.gallery.learned ?? null, pairs };
  }

  private async scoreQuery(q: Descriptor, gallery: GalleryLookup, s: KindSettings, useLocal: boolean): Promise<ImageScore[]> {
    const hits = shortlist(await gallery.search(q.global, (s.shortlist * s.perIndividual + s.tailShortlist) * 4, q), s);
    const place = new Map<string, number>();
    for (const h of hits) if (!place.has(h.individualId)) place.set(h.individualId, place.size);
    const scores: ImageScore[] = hits.map((h) => ({
      ...h,
      rank: place.get(h.individualId)!,
      inliers: new Int32Array(0),
      spread: 0,
      guarded: 0,
    }));
    if (!useLocal || hits.length === 0) return scores;
    const ids = hits.map((h) => h.id);
    const local = await this.verifier(q.local, await gallery.localFeatures(ids), ids, s);
    for (const sc of scores) {
      const ev = local.get(sc.id);
      if (!ev) continue;
      sc.inliers = ev.inliers;
      sc.spread = ev.spread;
      sc.pairs = ev.pairs;
    }
    guardBackground(scores, s.backgroundGuard);
    return scores;
  }
}

/** Keeps the best `shortlist` individuals with up to `perIndividual` images each, then `tailShortlist` more with one image each. */
function shortlist(hits: readonly GalleryHit[], s: KindSettings): GalleryHit[] {
  const byInd = new Map<string, { rank: number; list: GalleryHit[] }>();
  for (const h of hits) {
    let entry = byInd.get(h.individualId);
    if (!entry) {
      if (byInd.size >= s.shortlist + s.tailShortlist) continue;
      entry = { rank: byInd.size, list: [] };
      byInd.set(h.individualId, entry);
    }
    // Individuals past the main shortlist are verified on their best image only (the tail).
    const cap = entry.rank < s.shortlist ? s.perIndividual : 1;
    if (entry.list.length < cap) entry.list.push(h);
  }
  return [...byInd.values()].flatMap((e) => e.list);
}

/**
 * Weights each query keypoint's inliers by 1 / (number of distinct
 * individuals it is an inlier for): scene background that repeats across
 * individuals is shared out, the animal's own pattern keeps its full weight.
 */
function guardBackground(scores: ImageScore[], enabled: boolean): void {
  const owners = new Map<number, Set<string>>();
  if (enabled) {
    for (const sc of scores)
      for (const k of sc.inliers) {
        const set = owners.get(k) ?? new Set<string>();
        set.add(sc.individualId);
        owners.set(k, set);
      }
  }
  for (const sc of scores) {
    let g = 0;
    for (const k of sc.inliers) {
      const n = enabled ? owners.get(k)!.size : 1;
      g += 1 / n;
    }
    sc.guarded = g;
  }
}

/**
 * Re-ranks candidates after some were removed (e.g. a caller-excluded
 * individual): margins are recomputed among those that remain.
 */
export function rerank(cands: readonly Candidate[], cal: CalibrationParams): Candidate[] {
  const out = cands.map((c) => {
    let otherG = -1;
    let otherL = 0;
    let otherLearned = -1;
    for (const o of cands)
      if (o.individualId !== c.individualId) {
        otherG = Math.max(otherG, o.evidence.global);
        otherL = Math.max(otherL, o.evidence.local);
        if (o.evidence.learned !== undefined) otherLearned = Math.max(otherLearned, o.evidence.learned);
      }
    const evidence: Evidence = {
      ...c.evidence,
      globalMargin: cands.length > 1 ? c.evidence.global - otherG : c.evidence.global,
      localMargin: Math.log1p(c.evidence.local) - Math.log1p(otherL),
    };
    // The backbone's cosine over the runner-up's: the learned score's own margin (fusion.ts).
    if (c.evidence.learned !== undefined) evidence.learnedMargin = c.evidence.learned - otherLearned;
    return { ...c, evidence, probability: probability(evidence, cal) };
  });
  return out.sort((x, y) => y.probability - x.probability);
}

/**
 * Reorders candidates ranked by probability when an owner's backbone scored them (`learned` on
 * the hits) and the kind asks for it; nyala-dev's stripes are ordered far better by the backbone
 * than by the base evidence (benchmarks/results/backbone-nyala-dev.json). Probabilities stay.
 */
export function orderByLearned<C extends { individualId: string }>(
  ranked: C[],
  perQuery: readonly { individualId: string; learned?: number }[][],
  order: KindSettings['learnedOrder'],
): C[] {
  if (order === 'probability') return ranked;
  const best = new Map<string, number>();
  for (const scores of perQuery)
    for (const sc of scores)
      if (sc.learned !== undefined) best.set(sc.individualId, Math.max(best.get(sc.individualId) ?? -Infinity, sc.learned));
  if (best.size === 0) return ranked;
  const byLearned = [...ranked].sort((a, b) => (best.get(b.individualId) ?? -Infinity) - (best.get(a.individualId) ?? -Infinity));
  if (order === 'learned') return byLearned;
  const at = new Map(byLearned.map((c, i) => [c.individualId, i]));
  // Sum of both ranks; ties go to the probability order.
  return ranked
    .map((c, i) => ({ c, r: i + at.get(c.individualId)! + i * 1e-3 }))
    .sort((a, b) => a.r - b.r)
    .map((x) => x.c);
}

/** Fuses per-query image scores into per-individual evidence and ranks by probability. */
function rankIndividuals(perQuery: ImageScore[][], cal: CalibrationParams, useGlobal: boolean): Candidate[] {
  const agg = new Map<
    string,
    { global: number; local: number; spread: number; learned?: number; rank: number; images: Map<string, number> }
  >();
  // Several photos (or frames) of one subject are one query: each score keeps its best over them.
  for (const scores of perQuery) {
    for (const sc of scores) {
      const a = agg.get(sc.individualId) ?? { global: -1, local: 0, spread: 0, rank: sc.rank, images: new Map<string, number>() };
      a.global = Math.max(a.global, useGlobal ? sc.similarity : 0);
      a.rank = Math.min(a.rank, sc.rank);
      if (sc.learned !== undefined) a.learned = Math.max(a.learned ?? -1, sc.learned);
      if (sc.guarded > a.local) {
        a.local = sc.guarded;
        a.spread = sc.spread;
      }
      a.images.set(sc.id, Math.max(a.images.get(sc.id) ?? 0, sc.guarded + sc.similarity));
      agg.set(sc.individualId, a);
    }
  }
  const cands: Candidate[] = [...agg.entries()].map(([individualId, a]) => ({
    individualId,
    probability: 0,
    evidence: {
      global: a.global,
      local: a.local,
      globalMargin: 0,
      localMargin: 0,
      spread: a.spread,
      rank: a.rank,
      ...(a.learned !== undefined ? { learned: a.learned } : {}),
    },
    imageIds: [...a.images.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id),
  }));
  return rerank(cands, cal);
}
