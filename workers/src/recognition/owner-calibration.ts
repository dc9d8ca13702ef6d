/**
 * Per-owner, per-kind calibration (issue 23): fitted on the owner's own gallery by holding out
 * photos and whole individuals (the open set, vision/open-set.ts), plus the owner's
 * `identify_verdict` labels answered by the same pipeline, then stored in `owner_calibrations`
 * (migration 150) under the pipeline it was fitted for. A new model, learned version or recipe
 * is a new pipeline: nothing stored matches it until the next fit, so identify falls back to the
 * kind's defaults and says so rather than trust a calibration of another pipeline.
 */
import { scopeOfJob, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { isStaleFit } from '../../../shared/src/domain/calibration-fit.js';
import { descriptorsRepo, type FitDescriptorRow } from '../../../shared/src/repos/descriptors.repo.js';
import { identifyVerdictsRepo } from '../../../shared/src/repos/identify-verdicts.repo.js';
import { learnedModelsRepo } from '../../../shared/src/repos/learned-models.repo.js';
import { ownerCalibrationsRepo } from '../../../shared/src/repos/owner-calibrations.repo.js';
import { severalScopes, vouchesFor, type CalibrationParams, type Evidence } from '../vision/calibrate.js';
import type { Descriptor, GalleryLookup, RecognitionEngine } from '../vision/engine.js';
import { PREVIEW_SIDE } from '../vision/engine.js';
import type { ModelRef } from '../vision/embed.js';
import { fitFusedCalibration, type FusedFitReport, type QuerySample } from '../vision/fused-fit.js';
import { decodeImage, downscale } from '../vision/intake.js';
import { isAnySpecies } from '../vision/kind-calibration.js';
import { fitSeveralScopes, openSetSamples, pickHeldOut, type HeldOutPhoto } from '../vision/open-set.js';
import { bytesToVector, toBytes } from './bytes.js';
import type { Pools } from './pool.js';
import type { LearnedGalleries } from './learned-gallery.port.js';
import { ownPool } from '../../../shared/src/access/pool-owners.js';

/** `all`: the whole pool; `tree`: fruit identified within one tree (`tree_id`), a different score distribution. */
export type CalibrationScope = 'all' | 'tree';
/** The scopes fitted for a kind: fruit is also identified within one tree (`tree_id`), which has its own fit. */
export const calibrationScopes = (kind: Kind): readonly CalibrationScope[] => (kind === 'fruit' ? ['all', 'tree'] : ['all']);

/** The pipeline a calibration belongs to: engine version, the learned version that searched, the scope. */
export function pipelineKey(engine: { model: ModelRef }, learned: ModelRef | null, scope: CalibrationScope = 'all'): string {
  return `${engine.model.version}|${learned ? `${learned.name}@${learned.version}` : 'base'}|${scope}`;
}

/** What identify tells the client about the calibration behind its probability (OpenAPI: IdentifyOut.calibration). */
export interface CalibrationInfo {
  /** Which decided, in serving order: the owner's own fit, the fit pooled from every owner's labels, the kind's shipped one. */
  source: 'owner' | 'pooled' | 'kind_default';
  /** Why the kind's defaults were used; null with the owner's own. */
  reason: string | null;
  /** Queries the owner's fit rested on (held-out gallery photos, hidden individuals, labels). */
  samples: number | null;
  /** How many independent queries those are worth (fused-fit.ts: effective_n); null for fits stored before it was counted. */
  effective_samples: number | null;
  /** Clopper–Pearson 95% upper bound of the false-match rate at the match threshold. */
  false_match_bound: number | null;
  match_threshold: number;
  fitted_at: string | null;
  /**
   * The thresholds for queries of several photos, one per number of photos, each vouched on groups
   * of that many of the owner's held-out photos (with the kind's calibration: pairs of other herds'
   * photos, bench:kind-pairs); null (or a size missing): none vouched, so such a query is a `match`
   * only when every photo alone is one.
   */
  several:
    | { photos: number; match_threshold: number; samples: number; false_match_bound: number | null; held_to: 'best_photo' | 'agreement' }[]
    | null;
}

export interface StoredCalibration {
  params: CalibrationParams | null;
  report: Omit<FusedFitReport, 'params'>;
  created_at: string;
}

export async function loadOwnerCalibration(
  db: Queryable,
  owner: OwnerScope,
  kind: Kind,
  pipeline: string,
): Promise<StoredCalibration | null> {
  const row = await ownerCalibrationsRepo.latest<CalibrationParams, StoredCalibration['report']>(db, owner, kind, pipeline);
  return row ? { params: row.params, report: row.report, created_at: new Date(row.created_at).toISOString() } : null;
}

/** The recipe and report of the owner's learned version that searched (its ONNX bytes are not read); null for the base pipeline. */
async function learnedVersion(db: Queryable, owner: OwnerScope, kind: Kind, learned: ModelRef | null): Promise<LearnedVersionFacts | null> {
  if (!learned) return null;
  const row = await learnedModelsRepo.facts(db, owner, kind, Number(learned.version));
  return row ? { recipe: row.recipe, report: row.report, createdAt: new Date(row.created_at) } : null;
}

/** What the calibration needs to know of a learned version: its recipe, its report, when it was stored. */
export interface LearnedVersionFacts {
  recipe: string;
  report: Record<string, unknown>;
  /** Photos enrolled after this were never trained on (training read the gallery before it). */
  createdAt?: Date;
}

/** Why a fit made under the old rule is not served (isStaleFit). */
const STALE_REASON =
  'your calibration was fitted under an older rule that counted every photo as independent and mixed strangers with enrolled animals, which promised fewer false matches than real photos gave';

/** A match threshold no probability reaches: matches withheld, the closest still shown as `uncertain`. */
export const MATCH_WITHHELD = 1.01;

/** A pooled calibration as the serving order sees it (pool-calibration.ts servingPooled). */
export interface PooledServing {
  id: number;
  params: CalibrationParams;
  report: Record<string, unknown>;
  created_at: string;
}

/**
 * The calibration identify uses for an owner and pipeline, and what to tell the client about it:
 * the serving order in one place.
 *
 * 1. The owner's own fit, where it vouches. It may tighten but never loosen: `guard` is the
 *    calibration that would serve without it (pooled, else the kind's vouched one), and a `match`
 *    must pass it too (engine.ts identify).
 * 2. Behind a fine-tuned backbone with no fit of its own: no `match` (the kind's and the pooled
 *    calibrations were fitted on the base model's scores and vouch for nothing there).
 * 3. The calibration pooled from every owner's labelled answers, where one serves this kind,
 *    species and herd size (base pipeline only).
 * 4. The kind's shipped calibration, or its hand-set defaults, with the reason.
 *
 * Steps 3 and 4 are taken per number of photos asked together: a pooled fit that vouches for one
 * photo but not for `photos` gives way to the kind's calibration where that one vouches for them
 * (a pooled fit's several-photo cells fill only as owners ask that way, and without a vouched
 * threshold every photo alone would have to be a `match`).
 */
export async function calibrationFor(
  db: Queryable,
  owner: OwnerScope,
  kind: Kind,
  pipeline: string,
  /** The kind's defaults, or how to get them: asked only when the owner's own fit does not serve. */
  kindDefaults: CalibrationParams | (() => Promise<CalibrationParams>),
  learned: ModelRef | null = null,
  /** The pooled calibration serving this pool, if any (asked for the base pipeline only). */
  pooled: () => Promise<PooledServing | null> = async () => null,
  /** Photos asked together as one subject. */
  photos = 1,
): Promise<{ params: CalibrationParams; guard: CalibrationParams | null; info: CalibrationInfo }> {
  const stored = await loadOwnerCalibration(db, owner, kind, pipeline);
  // A fit made under the old rule is no fit at all (shared/src/domain/calibration-fit.ts).
  const stale = stored !== null && isStaleFit(stored);
  const kindDefault = async () => (typeof kindDefaults === 'function' ? await kindDefaults() : kindDefaults);
  /** The pooled fit, unless it cannot vouch for this many photos and the kind's calibration can. */
  const poolFor = async (pool: PooledServing | null): Promise<{ pool: PooledServing | null; kd: CalibrationParams | null }> => {
    if (!pool || vouchesFor(pool.params, photos)) return { pool, kd: null };
    const kd = await kindDefault();
    return kd.vouched && vouchesFor(kd, photos) ? { pool: null, kd } : { pool, kd: null };
  };
  if (stored?.params && !stale) {
    let guard: CalibrationParams | null = null;
    if (!learned) {
      const { pool, kd } = await poolFor(await pooled());
      const without = pool?.params ?? kd ?? (await kindDefault());
      guard = pool || without.vouched ? without : null;
    }
    return {
      params: stored.params,
      guard,
      info: {
        source: 'owner',
        reason: null,
        samples: stored.report.n,
        effective_samples: stored.report.effective_n ?? null,
        false_match_bound: round(stored.report.fmr_upper),
        match_threshold: round(stored.params.matchThreshold)!,
        fitted_at: stored.created_at,
        several: severalInfo(stored.params),
      },
    };
  }
  if ((await learnedVersion(db, owner, kind, learned))?.recipe.startsWith('finetuned-')) {
    const kd = await kindDefault();
    return {
      params: { ...kd, matchThreshold: MATCH_WITHHELD },
      guard: null,
      info: {
        source: 'kind_default',
        samples: stored?.report.n ?? null,
        effective_samples: stored?.report.effective_n ?? null,
        false_match_bound: null,
        match_threshold: MATCH_WITHHELD,
        fitted_at: stored?.created_at ?? null,
        several: null,
        reason: `the model fine-tuned on your photos is not yet calibrated on photos it never trained on${stored ? ` (${stale ? STALE_REASON : stored.report.reason})` : ''}, so no answer is a match until it is; the closest are shown for you to choose`,
      },
    };
  }
  const why = stale
    ? `${STALE_REASON}; the kind's defaults apply until it is refitted at your next learning run`
    : stored
      ? `not enough of your own photos to vouch for 1% false matches: ${stored.report.reason}`
      : 'not yet calibrated on your own photos for this model';
  const { pool, kd: gaveWay } = learned ? { pool: null, kd: null } : await poolFor(await pooled());
  if (pool) {
    const r = pool.report as { owners?: number; samples?: number; effective_n?: number; fmr_upper?: number };
    return {
      params: pool.params,
      guard: null,
      info: {
        source: 'pooled',
        reason: `${why}; the calibration pooled from the confirmed answers of ${r.owners ?? 'several'} owners of this kind decides (version ${pool.id})`,
        samples: r.samples ?? null,
        effective_samples: r.effective_n ?? null,
        false_match_bound: round(r.fmr_upper),
        match_threshold: round(pool.params.matchThreshold)!,
        fitted_at: pool.created_at,
        several: severalInfo(pool.params),
      },
    };
  }
  const kd = gaveWay ?? (await kindDefault());
  const v = kd.vouched;
  // Say what the defaults rest on: a calibration fitted on other herds, or hand-set numbers.
  const scope = isAnySpecies(kd)
    ? "; no dataset stood for this herd's species, so its threshold is the one that held for every species measured"
    : '';
  const notPooled = gaveWay ? `; the calibration pooled from other owners does not yet vouch for ${photos} photos asked together` : '';
  const reason = v
    ? `${why}${notPooled}; the kind's calibration, fitted on ${v.individuals} individuals of other herds, applies${scope}`
    : `${why}; the kind's defaults apply`;
  return {
    params: kd,
    guard: null,
    info: {
      source: 'kind_default',
      reason,
      samples: stored?.report.n ?? null,
      effective_samples: stored?.report.effective_n ?? null,
      false_match_bound: v ? round(v.fmrUpper) : null,
      match_threshold: round(kd.matchThreshold)!,
      fitted_at: stored?.created_at ?? null,
      several: severalInfo(kd),
    },
  };
}

/**
 * The calibration a public fruit lookup decides with. Its pool is every owner's published fruit,
 * so no owner's own fit speaks for it: the kind's calibration decides, as it does for an owner
 * with no fit of their own (calibrationFor). Hand-set numbers that nothing vouched for cannot make
 * a `match` to a stranger (spec section 1 rule 5: fruit scores barely separate right from wrong;
 * and a lone published fruit has no rival to lose to, so any peel scores near certain): the match
 * is withheld as it is behind an uncalibrated backbone, and the closest are shown to choose from.
 */
export function publicCalibration(kindDefault: CalibrationParams): { params: CalibrationParams; vouched: boolean } {
  const vouched = Boolean(kindDefault.vouched);
  return { params: vouched ? kindDefault : { ...kindDefault, matchThreshold: MATCH_WITHHELD }, vouched };
}

/** The several-photo thresholds a calibration carries (the owner's, or the kind's shipped pairs'), as the client sees them. */
function severalInfo(params: CalibrationParams): CalibrationInfo['several'] {
  return params.several
    ? severalScopes(params).map((s) => ({
        photos: s.groupSize,
        match_threshold: round(s.matchThreshold)!,
        samples: s.queries,
        false_match_bound: round(s.fmrUpper),
        held_to: s.combine === 'agree' ? ('agreement' as const) : ('best_photo' as const),
      }))
    : null;
}

const round = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : Math.round(v * 1e4) / 1e4;

export interface OwnerFitDeps {
  c: Container;
  engine: RecognitionEngine;
  pools: Pools;
  learned?: LearnedGalleries;
}

type GalleryRow = FitDescriptorRow;

/**
 * After a fine-tuned backbone is adopted, the photos it never trained on are the only honest
 * calibration queries: its report's `held_out_images`, and every photo enrolled after the version
 * was stored. Only individuals it never trained on at all can be hidden to stand for the open set:
 * its `strangers`, and individuals all of whose photos came after it. The backbone maps any cow
 * near one of its herd, so a hidden trained cow is found "unknown" far more easily than a real
 * stranger; on a 7-cow herd, fitting on every photo separated right from wrong almost perfectly on
 * the gallery and then matched half the never-enrolled cows (benchmarks/results/README.md,
 * "Verdicts per owner, and the herd learning loop"). A backbone version that did not record its held-out photos (recipe v2 and
 * before) leaves only later photos. Null: no restriction (base model, linear metric).
 */
export function honestSample<T extends { image_id: string; individual_id: string; created_at?: Date | string }>(
  rows: readonly T[],
  version: LearnedVersionFacts | null,
): { rows: T[]; strangers: Set<string> } | null {
  if (!version || !version.recipe.startsWith('finetuned-')) return null;
  const held = Array.isArray(version.report.held_out_images) ? new Set(version.report.held_out_images as string[]) : new Set<string>();
  const strangers = new Set(Array.isArray(version.report.strangers) ? (version.report.strangers as string[]) : []);
  const after = (r: T) => version.createdAt !== undefined && r.created_at !== undefined && new Date(r.created_at) > version.createdAt;
  // An individual with any photo from before the version may have been trained on.
  const earlier = new Set(rows.filter((r) => !after(r)).map((r) => r.individual_id));
  for (const r of rows) if (after(r) && !earlier.has(r.individual_id)) strangers.add(r.individual_id);
  return { rows: rows.filter((r) => held.has(r.image_id) || after(r)), strangers };
}

/**
 * How a fit of at most `cap` held-out photos splits between strangers' photos (first, up to half:
 * they are the only open-set queries a fine-tuned backbone allows) and the rest.
 */
export function calibrationPicks(strangerPhotos: number, otherPhotos: number, cap: number): { strangers: number; others: number } {
  const strangers = Math.min(strangerPhotos, Math.ceil(cap / 2));
  return { strangers, others: Math.min(otherPhotos, cap - strangers) };
}

/**
 * About how many queries such a fit will rest on: every picked photo is asked with its individual
 * enrolled, and the open-set ones again with it hidden (all of them for the base model).
 */
export function calibrationQueries(strangerPhotos: number, otherPhotos: number, cap: number, openSetOthers = false): number {
  const p = calibrationPicks(strangerPhotos, otherPhotos, cap);
  return 2 * p.strangers + (openSetOthers ? 2 : 1) * p.others;
}

/** The owner's own pool of a kind (or of one tree's fruit) as identify searches it: with their adopted learned version, if any. */
async function ownGallery(d: OwnerFitDeps, owner: OwnerScope, kind: Kind, treeId: string | null = null): Promise<GalleryLookup> {
  const filter = { kind, farmId: null, treeId };
  const base = await d.pools.gallery(ownPool(owner), filter);
  return (await d.learned?.gallery(owner, ownPool(owner), filter, base)) ?? base;
}

/**
 * Fits and stores the owner's calibration for a kind and scope under the pipeline serving now.
 * Only the owner's own pool is used: a granted pool is someone else's data.
 */
export async function fitOwnerCalibration(
  d: OwnerFitDeps,
  ownerId: string,
  kind: Kind,
  scope: CalibrationScope = 'all',
  maxHeldOut = d.c.config.CALIBRATION_MAX_PHOTOS,
): Promise<{ pipeline: string; report: FusedFitReport }> {
  const { c, engine } = d;
  // The owner the fit runs for: a training job's, the reindex job's, or the operator's CLI argument.
  // (A bare id here because benchmarks/herd-learning.ts calls it too; every statement below takes the scope.)
  const owner = scopeOfJob({ owner_id: ownerId });
  const rows = await descriptorsRepo.fitRows(c.db, owner, kind, engine.model);
  const gallery = await ownGallery(d, owner, kind);
  const pipeline = pipelineKey(engine, gallery.learned ?? null, scope);
  const photos = new Map<string, string[]>();
  for (const r of rows) photos.set(r.individual_id, [...(photos.get(r.individual_id) ?? []), r.image_id]);
  const honest = honestSample(rows, await learnedVersion(c.db, owner, kind, gallery.learned ?? null));
  // Ordered by content, not by image id: the same photos give the same sample however often they are enrolled.
  const eligible = (honest?.rows ?? rows).map((r) => ({ ...r, imageId: r.image_id, individualId: r.individual_id, order: r.cid }));
  const ofStrangers = eligible.filter((r) => honest?.strangers.has(r.individual_id));
  const others = eligible.filter((r) => !honest?.strangers.has(r.individual_id));
  const split = honest ? calibrationPicks(ofStrangers.length, others.length, maxHeldOut) : { strangers: 0, others: maxHeldOut };
  const picked = [...pickHeldOut(ofStrangers, split.strangers), ...pickHeldOut(others, split.others)];
  const heldOut: HeldOutPhoto[] = [];
  for (const r of picked) {
    let gal: GalleryLookup | undefined;
    if (scope === 'tree') {
      if (!r.tree_id) continue;
      gal = await ownGallery(d, owner, kind, r.tree_id);
    }
    heldOut.push({
      imageId: r.image_id,
      individualId: r.individual_id,
      descriptor: await descriptorOf(c, engine, kind, r),
      ...(gal ? { gallery: gal } : {}),
    });
  }
  const openSetOf = honest ? (id: string) => honest.strangers.has(id) : undefined;
  const samples = await openSetSamples(
    engine,
    { kind, gallery, ...(openSetOf ? { openSetOf } : {}) },
    heldOut,
    (id) => photos.get(id) ?? [],
  );
  samples.push(...(await labelSamples(c, owner, kind, engine, gallery.learned ?? null)));
  const report = fitFusedCalibration(samples, { source: `owner:${scope}` });
  if (report.params)
    report.params.several = await fitSeveralScopes(
      engine,
      { kind, gallery, ...(openSetOf ? { openSetOf } : {}), calibration: report.params },
      heldOut,
      (id) => photos.get(id) ?? [],
    );
  const { params, ...rest } = report;
  await ownerCalibrationsRepo.insert(c.db, owner, { kind, pipeline, params: params ?? null, report: rest });
  return { pipeline, report };
}

/** A stored descriptor as the engine's query, with the preview a fine-tuned backbone embeds. */
async function descriptorOf(c: Container, engine: RecognitionEngine, kind: Kind, r: GalleryRow): Promise<Descriptor> {
  let preview: Descriptor['preview'];
  let width = 0;
  let height = 0;
  if (kind === 'animal') {
    const bytes = await c.blobs.get(r.cid);
    const img = bytes ? await decodeImage(bytes).catch(() => null) : null;
    if (img) {
      preview = await downscale(img, PREVIEW_SIDE);
      width = img.width;
      height = img.height;
    }
  }
  return {
    model: engine.model,
    models: [],
    subject: r.subject ?? null,
    global: bytesToVector(r.global),
    local: r.local ? toBytes(r.local) : new Uint8Array(0),
    quality: { width, height, sharpness: 0, brightness: 0, reasons: [] },
    width,
    height,
    ...(preview ? { preview } : {}),
  };
}

/**
 * The owner's labels answered by this very pipeline (same engine and learned version): the top
 * answer's stored evidence, right when the label confirms it.
 */
async function labelSamples(
  c: Container,
  owner: OwnerScope,
  kind: Kind,
  engine: RecognitionEngine,
  learned: ModelRef | null,
): Promise<QuerySample[]> {
  const labels = await identifyVerdictsRepo.ownerLabelsOfPipeline<Evidence>(
    c.db,
    owner,
    kind,
    engine.model.version,
    learned ? Number(learned.version) : null,
  );
  return labels.flatMap((row) => {
    const top = row.evidence?.[0];
    if (!top) return [];
    const same = row.verdict === 'correct' || (row.correct_id !== null && row.correct_id === top.individual_id);
    return [{ evidence: top.evidence, same, group: row.correct_id ?? top.individual_id, openSet: row.verdict === 'unknown_ok' }];
  });
}

/**
 * Fits every (owner, kind) that has photos described by the model serving now but no fit for the
 * pipeline serving now, or only a stale one (isStaleFit). A fit is keyed by pipeline, so after a re-embedding under a new model
 * (reindex) every owner's verdicts would fall back to the kind's defaults until their next
 * training run. A retried job fits only what is still missing. Answers how many fits it stored.
 */
export async function refitMissingCalibrations(d: OwnerFitDeps, ownerId?: string): Promise<number> {
  const { c, engine } = d;
  let fitted = 0;
  for (const row of await descriptorsRepo.ownerKinds(c.db, engine.model, ownerId)) {
    // Each owner the reindex job re-embedded (its own, or every owner's for an operator's reindex).
    const { kind } = row;
    const owner = scopeOfJob(row);
    const learned = (await ownGallery(d, owner, kind)).learned ?? null;
    for (const scope of calibrationScopes(kind)) {
      const stored = await loadOwnerCalibration(c.db, owner, kind, pipelineKey(engine, learned, scope));
      if (stored && !isStaleFit(stored)) continue;
      await fitOwnerCalibration(d, owner.ownerId, kind, scope);
      fitted++;
    }
  }
  return fitted;
}
