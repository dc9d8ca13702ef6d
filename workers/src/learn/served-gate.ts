/**
 * Adoption that can only help (issue 23): a candidate model is compared with the pipeline being
 * served *as served* — the engine's whole identify (shortlist, verification, ordering, fused
 * calibration, verdicts) — on the same held-out gallery photos, each asked twice (photo hidden;
 * whole individual hidden, the open set). It is adopted only when the sample is large enough,
 * served top-1 is not worse beyond the sample's noise (and never by more than `maxDrop`), and
 * correct `match` answers at ≤ 1% false matches improve, each side judged at the threshold its
 * own calibration can vouch for (the served fit's sample; the candidate's never-trained photos).
 * Otherwise it is refused with a reason the owner reads in the version's report.
 *
 * Before this gate a small herd's candidate was compared with the base *global* embedding on 7
 * photos, not with what was served, and was adopted while it halved served top-1.
 */
import { cosine } from '../vision/embed.js';
import type { GalleryHit, GalleryLookup } from '../vision/engine.js';
import { fitFusion } from '../vision/fusion.js';
import { minimumSample, vouchedFalses } from '../vision/threshold.js';
import type { QuerySample } from '../vision/fused-fit.js';
import {
  learningMessage,
  percent,
  renderLearning,
  type LearningCode,
  type LearningMessage,
} from '../../../shared/src/domain/learning-reason.js';

export interface ServedFigures {
  /** Held-out photos asked with their individual still enrolled. */
  closed: number;
  /** Asked with their individual hidden. */
  open: number;
  top1: number;
  /**
   * Right `match` answers, as a share of closed-set queries, at the threshold this pipeline's own
   * calibration could vouch for: its false-match allowance is what a Clopper–Pearson bound on
   * `calibration_queries` queries lets through (threshold.ts vouchedFalses), applied to this
   * sample. 0 when that calibration cannot vouch for the target at all: matches are withheld.
   */
  correct_match: number;
  /** Queries the pipeline's calibration rests on (served: its fit; a candidate: the photos it never trained on). */
  calibration_queries: number;
  /** False matches allowed in this sample at that threshold; -1: none vouched, no `match`. */
  allowed_false_matches: number;
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
   * Queries the served pipeline's calibration rests on (the owner's stored fit). Default: the
   * gate's own sample.
   */
  servedCalibration?: number;
  /**
   * Queries the candidate's calibration will rest on after adoption: only photos it never trained
   * on (held-out photos asked, strangers also hidden), as the owner fit picks them. Default: the
   * gate's own sample.
   */
  candidateCalibration?: number;
}

export interface GateDecision {
  adopt: boolean;
  /** Why, in English: `message` rendered (the report is data, not an error message). */
  reason: string;
  /** The same sentence as a catalogue code and its figures, which the app shows in the owner's language. */
  message: LearningMessage;
  served: ServedFigures;
  candidate: ServedFigures;
  /** The top-1 drop tolerated for this sample: min(z × standard error of the paired difference, maxDrop). */
  tolerance: number;
  individuals: number;
}

/**
 * Top-1, and right `match` answers at the threshold a calibration of `calibrationQueries` queries
 * would serve. Probabilities are each pipeline's own fused calibration, cross-fitted on these
 * samples. Judging at the threshold each side can vouch for, not at an oracle 1% of this sample:
 * on the 68-cow herd the oracle let the gate count several false matches as within 1% while the
 * refit after adoption, on fewer queries, could allow none, and served correct `match` fell where
 * the gate had predicted a rise (benchmarks/results/herd-learning-holstein-68cows.json;
 * benchmarks/results/README.md, "Verdicts per owner, and the herd learning loop").
 */
export function servedFigures(samples: readonly QuerySample[], target = 0.01, calibrationQueries = samples.length): ServedFigures {
  const closed = samples.filter((s) => !s.openSet);
  const right = closed.filter((s) => s.same).length;
  const k = vouchedFalses(calibrationQueries, target);
  const allowed = k < 0 ? -1 : Math.floor((k / calibrationQueries) * samples.length + 1e-9);
  const figures = {
    closed: closed.length,
    open: samples.length - closed.length,
    top1: closed.length ? right / closed.length : 0,
    correct_match: 0,
    calibration_queries: calibrationQueries,
    allowed_false_matches: allowed,
  };
  if (allowed < 0 || right === 0 || right === samples.length) return figures;
  const { outOfFold } = fitFusion(samples);
  const order = samples.map((s, i) => ({ p: outOfFold[i]!, s })).sort((a, b) => b.p - a.p);
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
  const s = servedFigures(served, o.targetFmr, o.servedCalibration ?? served.length);
  const c = servedFigures(candidate, o.targetFmr, o.candidateCalibration ?? candidate.length);
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
  const decide = (adopt: boolean, code: LearningCode, params: Record<string, number>): GateDecision => {
    const message = learningMessage(code, params);
    return { adopt, reason: renderLearning(message, 'en'), message, served: s, candidate: c, tolerance, individuals };
  };
  const target = percent(o.targetFmr);
  const top1 = { top1_from: percent(s.top1), top1_to: percent(c.top1), photos: n };
  if (n < o.minPhotos || individuals < o.minIndividuals) {
    return decide(false, 'learn_too_few_held_out', { photos: n, individuals, min_photos: o.minPhotos, min_individuals: o.minIndividuals });
  }
  const drop = s.top1 - c.top1;
  if (drop > tolerance) {
    return decide(false, 'learn_top1_would_fall', { from: percent(s.top1), to: percent(c.top1), photos: n, tolerance: percent(tolerance) });
  }
  if (c.allowed_false_matches < 0) {
    // What it would match with a calibration that could vouch for the target: only the count refuses it.
    const need = minimumSample(o.targetFmr);
    const could = servedFigures(candidate, o.targetFmr, Math.max(need, c.calibration_queries));
    if (could.correct_match > s.correct_match) {
      return decide(false, 'learn_cannot_calibrate', { queries: c.calibration_queries, needed: need, target });
    }
  }
  if (c.correct_match > s.correct_match) {
    return decide(true, 'learn_adopted_more_matches', { target, from: percent(s.correct_match), to: percent(c.correct_match), ...top1 });
  }
  // Neither can match anything at 1% (striped coats at first): a top-1 gain beyond noise still
  // helps the owner, who chooses from the short list; ties elsewhere keep the served model.
  if (c.correct_match === 0 && s.correct_match === 0 && c.top1 - s.top1 > o.z * se) {
    return decide(true, 'learn_adopted_top1', { target, ...top1 });
  }
  return decide(false, 'learn_no_gain', { target, served: percent(s.correct_match), candidate: percent(c.correct_match), ...top1 });
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
export function spaceGallery(
  rows: readonly SpaceRow[],
  query: Float32Array | null,
  localFeatures: GalleryLookup['localFeatures'],
  learned?: GalleryLookup['learned'],
): GalleryLookup {
  return {
    ...(learned ? { learned } : {}),
    search(global: Float32Array, k: number): GalleryHit[] {
      const hits = rows.map((r) => {
        const base = cosine(global, r.base);
        const l = query && r.vector ? cosine(query, r.vector) : undefined;
        // Only a backbone's cosine reaches the engine as `learned` (a linear metric only orders the shortlist, as served).
        return {
          id: r.id,
          individualId: r.individualId,
          similarity: base,
          ...(l !== undefined && learned ? { learned: l } : {}),
          key: l ?? base,
        };
      });
      return hits
        .sort((a, b) => b.key - a.key)
        .slice(0, k)
        .map(({ key: _k, ...h }) => h);
    },
    localFeatures,
  };
}
