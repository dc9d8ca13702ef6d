/**
 * Adoption that can only help (issue 23): a candidate model is compared with the pipeline being
 * served *as served* — the engine's whole identify (shortlist, verification, ordering, fused
 * calibration, verdicts) — on the same held-out gallery photos, each asked twice (photo hidden;
 * whole individual hidden, the open set). It is adopted only when the sample is large enough,
 * served top-1 is not worse beyond the sample's noise (and never by more than `maxDrop`), and
 * correct `match` answers at ≤ 1% false matches improve. Otherwise it is refused with a reason
 * the owner reads in the version's report.
 *
 * Before this gate a small herd's candidate was compared with the base *global* embedding on 7
 * photos, not with what was served, and was adopted while it halved served top-1.
 */
import { cosine } from '../vision/embed.js';
import type { GalleryHit, GalleryLookup } from '../vision/engine.js';
import { fitFusion } from '../vision/fusion.js';
import { minimumSample } from '../vision/threshold.js';
import type { QuerySample } from '../vision/fused-fit.js';

export interface ServedFigures {
  /** Held-out photos asked with their individual still enrolled. */
  closed: number;
  /** Asked with their individual hidden. */
  open: number;
  top1: number;
  /** Right `match` answers, as a share of closed-set queries, at the threshold keeping false matches ≤ target of all queries. */
  correct_match: number;
}

export interface GateOptions {
  /** Fewest held-out photos with their individual enrolled (default 20). */
  minPhotos?: number;
  /** Fewest individuals among them (default 5). */
  minIndividuals?: number;
  /** Largest top-1 drop ever tolerated, noise or not (default 0.02). */
  maxDrop?: number;
  /** Normal quantile of the noise band (default 1.96). */
  z?: number;
  targetFmr?: number;
  /**
   * Fewest queries of photos the candidate never trained on (held-out photos asked, strangers also
   * hidden) for its matches to be vouched for after adoption: the owner's calibration may only be
   * fitted on those. Default: what the 1% bound needs (threshold.ts minimumSample).
   */
  minCalibration?: number;
}

export interface GateDecision {
  adopt: boolean;
  /** Why, in words the owner reads (English; the report is data, not an error message). */
  reason: string;
  served: ServedFigures;
  candidate: ServedFigures;
  /** The top-1 drop tolerated for this sample: min(z × standard error of the paired difference, maxDrop). */
  tolerance: number;
  individuals: number;
}

/**
 * Right `match` answers at the threshold that keeps false matches (wrong or open-set top answers
 * at or above it) within `target` of all queries. Probabilities are each pipeline's own fused
 * calibration, cross-fitted on these samples, so both are judged with the calibration they
 * would be served with.
 */
export function servedFigures(samples: readonly QuerySample[], target = 0.01): ServedFigures {
  const closed = samples.filter((s) => !s.openSet);
  const right = closed.filter((s) => s.same).length;
  const figures = { closed: closed.length, open: samples.length - closed.length, top1: closed.length ? right / closed.length : 0, correct_match: 0 };
  if (right === 0 || right === samples.length) return figures;
  const { outOfFold } = fitFusion(samples);
  const order = samples.map((s, i) => ({ p: outOfFold[i]!, s })).sort((a, b) => b.p - a.p);
  const allowed = Math.floor(target * samples.length);
  let falses = 0;
  let correct = 0;
  let best = 0;
  for (let i = 0; i < order.length; i++) {
    const { s, p } = order[i]!;
    if (s.same) correct++;
    else falses++;
    if (falses > allowed) break;
    if (i + 1 < order.length && order[i + 1]!.p === p) continue;
    best = correct;
  }
  return { ...figures, correct_match: closed.length ? best / closed.length : 0 };
}

/**
 * Decides on paired outcomes: `served[i]` and `candidate[i]` answer the same held-out query
 * (same photo, same hidden set).
 */
export function judgeServed(served: readonly QuerySample[], candidate: readonly QuerySample[], opts: GateOptions = {}): GateDecision {
  const o = { minPhotos: 20, minIndividuals: 5, maxDrop: 0.02, z: 1.96, targetFmr: 0.01, ...opts };
  const s = servedFigures(served, o.targetFmr);
  const c = servedFigures(candidate, o.targetFmr);
  const closedS = served.filter((x) => !x.openSet);
  const closedC = candidate.filter((x) => !x.openSet);
  const individuals = new Set(closedS.map((x) => x.group)).size;
  const n = Math.min(closedS.length, closedC.length);
  // Paired difference of top-1: photos the served pipeline got right and the candidate wrong (b), and the reverse (cc).
  let b = 0;
  let cc = 0;
  for (let i = 0; i < n; i++) {
    if (closedS[i]!.same && !closedC[i]!.same) b++;
    if (!closedS[i]!.same && closedC[i]!.same) cc++;
  }
  const se = n ? Math.sqrt(Math.max(0, b + cc - (b - cc) ** 2 / n)) / n : 1;
  const tolerance = Math.min(o.z * se, o.maxDrop);
  const decide = (adopt: boolean, reason: string): GateDecision => ({ adopt, reason, served: s, candidate: c, tolerance, individuals });
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  if (n < o.minPhotos || individuals < o.minIndividuals) {
    return decide(false, `refused: ${n} held-out photos of ${individuals} individuals are too few to show that the new model helps (at least ${o.minPhotos} photos of ${o.minIndividuals} individuals are needed); the served model stays`);
  }
  const drop = s.top1 - c.top1;
  if (drop > tolerance) {
    return decide(false, `refused: served top-1 would fall from ${pct(s.top1)} to ${pct(c.top1)} on ${n} held-out photos (more than the ${pct(tolerance)} this sample's noise allows)`);
  }
  if (c.correct_match > s.correct_match) {
    const need = o.minCalibration ?? minimumSample(o.targetFmr);
    if (candidate.length < need) {
      return decide(false, `refused: the new model would match more, but only ${candidate.length} queries of photos it never trained on are left to calibrate it (${need} are needed to vouch for ≤ ${pct(o.targetFmr)} false matches), so its matches could not be trusted; the served model stays`);
    }
    return decide(true, `adopted: correct matches at ≤ ${pct(o.targetFmr)} false matches rise from ${pct(s.correct_match)} to ${pct(c.correct_match)}, top-1 ${pct(s.top1)} → ${pct(c.top1)} on ${n} held-out photos`);
  }
  // Neither can match anything at 1% (striped coats at first): a top-1 gain beyond noise still
  // helps the owner, who chooses from the short list; ties elsewhere keep the served model.
  if (c.correct_match === 0 && s.correct_match === 0 && c.top1 - s.top1 > o.z * se) {
    return decide(true, `adopted: neither model can answer match at ≤ ${pct(o.targetFmr)} false matches yet, and top-1 rises beyond noise from ${pct(s.top1)} to ${pct(c.top1)} on ${n} held-out photos`);
  }
  return decide(false, `refused: correct matches at ≤ ${pct(o.targetFmr)} false matches do not improve (${pct(s.correct_match)} served, ${pct(c.correct_match)} new; top-1 ${pct(s.top1)} → ${pct(c.top1)})`);
}

/** An enrolled photo in a compared space. */
export interface SpaceRow {
  id: string;
  individualId: string;
  /** Base model embedding (the evidence's `global`). */
  base: Float32Array;
  /** Embedding in the compared space (a learned model's); absent: the base embedding is the space. */
  vector?: Float32Array;
}

/**
 * A brute-force gallery over rows in one space, with `query` as the query's vector in that space:
 * what the served HNSW gallery answers, exactly, for galleries the size a training judges.
 */
export function spaceGallery(rows: readonly SpaceRow[], query: Float32Array | null, localFeatures: GalleryLookup['localFeatures'], learned?: GalleryLookup['learned']): GalleryLookup {
  return {
    ...(learned ? { learned } : {}),
    search(global: Float32Array, k: number): GalleryHit[] {
      const hits = rows.map((r) => {
        const base = cosine(global, r.base);
        const l = query && r.vector ? cosine(query, r.vector) : undefined;
        // Only a backbone's cosine reaches the engine as `learned` (a linear metric only orders the shortlist, as served).
        return { id: r.id, individualId: r.individualId, similarity: base, ...(l !== undefined && learned ? { learned: l } : {}), key: l ?? base };
      });
      return hits.sort((a, b) => b.key - a.key).slice(0, k).map(({ key: _k, ...h }) => h);
    },
    localFeatures,
  };
}
