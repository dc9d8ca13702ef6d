/**
 * Calibration: evidence about one (query, candidate individual) pair becomes a
 * probability that they are the same individual, by logistic regression with
 * stored coefficients per kind. `fitCalibration` re-fits them from labelled
 * samples (e.g. stored `identify_verdict` labels) and reports how separation
 * changed, plus the decision threshold that keeps false matches within target.
 */
import type { Evidence } from './evidence.js';
import { fusedProbability, type FusionModel } from './fusion.js';

export type { Evidence } from './evidence.js';

export const FEATURE_NAMES = ['global', 'log_local', 'global_margin', 'local_margin', 'spread'] as const;

/** Stored calibration for one kind. */
export interface CalibrationParams {
  intercept: number;
  /** One coefficient per FEATURE_NAMES entry. */
  coef: number[];
  /** Probability at or above which the top candidate is a `match`. */
  matchThreshold: number;
  /** Probability at or above which candidates are shown as `uncertain`. */
  uncertainThreshold: number;
  /** Where the parameters came from (e.g. 'default', 'fit:gallery-loo', 'fit:identify_verdict'). */
  source: string;
  /**
   * Calibrated evidence fusion (fusion.ts): when present, the probability is the fused one and
   * `intercept`/`coef` are unused.
   */
  fusion?: FusionModel;
  /**
   * The `match` thresholds for queries of several photos (several photos of one animal, a survey
   * track's crops), one per number of photos, each chosen on groups of that many of the owner's
   * held-out photos asked that way (open-set.ts). A query of a size with no threshold here
   * (today only pairs are fitted, open-set.ts SEVERAL_SIZES) is decided by its first two photos as
   * a pair, or with no pair vouched by the every-photo rule (decide.ts). One object instead of a
   * list: an earlier fit, pairs only.
   */
  several?: SeveralScope[] | SeveralScope;
  /**
   * A kind's shipped calibration (kind-calibration.ts) only: what vouched for its threshold, fitted
   * on individuals of other herds. `fmrUpper`: the Clopper–Pearson bound (on effective samples) of
   * the false-match rate at the threshold, the larger of strangers' and enrolled animals'.
   */
  vouched?: { fmrUpper: number; individuals: number; queries: number };
}

export interface SeveralScope {
  /** 1.01 when no threshold kept the bound: then, as with no scope, every photo alone must say `match`. */
  matchThreshold: number;
  /** Photos per group the threshold was chosen on: it decides queries of exactly that many. */
  groupSize: number;
  queries: number;
  falseMatches: number;
  fmrUpper: number;
  /**
   * What the threshold is held against. Absent: the fused evidence's probability, each score at
   * its best over the photos. `agree`: the photos' agreement on one individual (decide.ts
   * `agreedTop`), which a stranger's chance look-alike in one photo does not reach unless the
   * other photo says the same.
   */
  combine?: 'agree';
}

/** Every several-photo threshold of a calibration, smallest group first (old single-object fits included). */
export function severalScopes(cal: Pick<CalibrationParams, 'several'>): SeveralScope[] {
  const s = cal.several;
  return (s === undefined ? [] : Array.isArray(s) ? [...s] : [s]).sort((a, b) => a.groupSize - b.groupSize);
}

/**
 * The threshold vouched for a query of `photos` photos, if any. Only the exact size: evidence is
 * fused by keeping each score's best over the photos, so every extra photo gives a wrong
 * individual one more chance, and a threshold chosen on pairs says nothing about four photos.
 */
export function severalScopeFor(cal: Pick<CalibrationParams, 'several'>, photos: number): SeveralScope | undefined {
  return severalScopes(cal).find((s) => s.groupSize === photos);
}

/**
 * Whether a calibration holds a vouched threshold for a query of `photos` photos, as decide.ts
 * decideSeveral reads it: one photo always; several, a threshold for exactly that many, or (more
 * than two) the pairs' threshold the first two photos are held to. Without one, a several-photo
 * query may only be a `match` when every photo alone is one.
 */
export function vouchesFor(cal: Pick<CalibrationParams, 'several'>, photos: number): boolean {
  if (photos <= 1) return true;
  const own = severalScopeFor(cal, photos);
  if (own) return own.matchThreshold <= 1;
  const pairs = severalScopeFor(cal, 2);
  return photos > 2 && pairs !== undefined && pairs.matchThreshold <= 1;
}

/** Hand-set priors: ~20 background-guarded inliers clearly ahead of the runner-up is strong evidence. */
export const DEFAULT_CALIBRATION: CalibrationParams = {
  intercept: -6,
  coef: [1.0, 1.2, 2.0, 1.5, 1.0],
  matchThreshold: 0.9,
  uncertainThreshold: 0.3,
  source: 'default',
};

export function featureVector(e: Evidence): number[] {
  return [e.global, Math.log1p(e.local), e.globalMargin, e.localMargin, e.spread];
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Probability that the evidence shows the same individual. */
export function probability(e: Evidence, p: CalibrationParams): number {
  if (p.fusion) return fusedProbability(p.fusion, e);
  const x = featureVector(e);
  let z = p.intercept;
  for (let i = 0; i < x.length; i++) z += (p.coef[i] ?? 0) * x[i]!;
  return sigmoid(z);
}

/** A labelled sample: the evidence for a top-1 answer and whether it was right. */
export interface LabelledSample {
  evidence: Evidence;
  same: boolean;
}

/** ROC AUC (probability a positive outscores a negative; ties count half). */
export function rocAuc(scores: readonly number[], labels: readonly boolean[]): number {
  const idx = scores.map((s, i) => [s, labels[i] ? 1 : 0] as const).sort((a, b) => a[0] - b[0]);
  let rankSumPos = 0;
  let nPos = 0;
  let i = 0;
  while (i < idx.length) {
    let j = i;
    while (j < idx.length && idx[j]![0] === idx[i]![0]) j++;
    const avgRank = (i + j + 1) / 2;
    for (let k = i; k < j; k++)
      if (idx[k]![1]) {
        rankSumPos += avgRank;
        nPos++;
      }
    i = j;
  }
  const nNeg = idx.length - nPos;
  if (nPos === 0 || nNeg === 0) return Number.NaN;
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/**
 * Smallest threshold whose false accepts (negatives scoring at or above it)
 * stay within `targetRate` of all samples.
 */
export function thresholdForFalseMatchRate(scores: readonly number[], labels: readonly boolean[], targetRate: number): number {
  const neg = scores.filter((_, i) => !labels[i]).sort((a, b) => b - a);
  const allowed = Math.floor(targetRate * scores.length);
  // Accepting strictly above the (allowed+1)-th highest negative keeps at most `allowed` false accepts.
  const bar = neg[allowed];
  return bar === undefined ? 0 : Math.min(1, bar + 1e-6);
}

export interface FitReport {
  params: CalibrationParams;
  n: number;
  positives: number;
  aucBefore: number;
  aucAfter: number;
  /** Share of positives at or above the new match threshold. */
  acceptRate: number;
  falseMatchRate: number;
}

/**
 * Fits logistic regression (L2-regularised, class-balanced gradient descent
 * on standardised features, non-negative coefficients) and picks the match
 * threshold for `targetFmr` (share of all samples falsely accepted). With
 * fewer than `minPositives` samples of either class the coefficients are kept
 * and the match threshold becomes 1 (no `match` verdicts until labels show the
 * engine separates this population).
 */
export function fitCalibration(
  samples: readonly LabelledSample[],
  opts: { previous?: CalibrationParams; targetFmr?: number; l2?: number; source?: string; minPositives?: number } = {},
): FitReport {
  const prev = opts.previous ?? DEFAULT_CALIBRATION;
  const X = samples.map((s) => featureVector(s.evidence));
  const y: number[] = samples.map((s) => (s.same ? 1 : 0));
  const d = FEATURE_NAMES.length;
  const mean = Array.from({ length: d }, (_, j) => X.reduce((a, x) => a + x[j]!, 0) / Math.max(1, X.length));
  const sd = Array.from(
    { length: d },
    (_, j) => Math.sqrt(X.reduce((a, x) => a + (x[j]! - mean[j]!) ** 2, 0) / Math.max(1, X.length)) || 1,
  );
  const Z = X.map((x) => x.map((v, j) => (v - mean[j]!) / sd[j]!));
  const w = new Array<number>(d).fill(0);
  let b = 0;
  const l2 = opts.l2 ?? 1e-2;
  const nPos = y.reduce((a, v) => a + v, 0);
  // Balance classes so a rare class still shapes the boundary.
  const wPos = nPos ? samples.length / (2 * nPos) : 1;
  const wNeg = samples.length - nPos ? samples.length / (2 * (samples.length - nPos)) : 1;
  const minPositives = opts.minPositives ?? 10;
  const enough = nPos >= minPositives && samples.length - nPos >= minPositives;
  for (let it = 0; enough && it < 3000; it++) {
    const gw = new Array<number>(d).fill(0);
    let gb = 0;
    for (let i = 0; i < Z.length; i++) {
      let z = b;
      for (let j = 0; j < d; j++) z += w[j]! * Z[i]![j]!;
      const err = (sigmoid(z) - y[i]!) * (y[i] ? wPos : wNeg);
      for (let j = 0; j < d; j++) gw[j]! += err * Z[i]![j]!;
      gb += err;
    }
    // Every feature is evidence *for* the same individual, so coefficients are
    // kept non-negative: a small or lopsided sample cannot invert the meaning.
    for (let j = 0; j < d; j++) w[j] = Math.max(0, w[j]! - 0.5 * (gw[j]! / Z.length + l2 * w[j]!));
    b -= 0.5 * (gb / Z.length);
  }
  // Too few labels of either class: keep the previous coefficients, re-pick only the threshold.
  const coef = enough ? w.map((v, j) => v / sd[j]!) : [...prev.coef];
  const intercept = enough ? b - w.reduce((a, v, j) => a + (v * mean[j]!) / sd[j]!, 0) : prev.intercept;
  const source = `${opts.source ?? 'fit'}${enough ? '' : ' (too few correct answers to fit: coefficients kept, match disabled)'}`;
  const draft: CalibrationParams = { intercept, coef, matchThreshold: 0.5, uncertainThreshold: 0.5, source };
  const labels = samples.map((s) => s.same);
  const after = samples.map((s) => probability(s.evidence, draft));
  const before = samples.map((s) => probability(s.evidence, prev));
  // Without enough correct answers in the labels there is no evidence the engine
  // can tell this population apart: answer `uncertain` at best, never `match`.
  const matchThreshold = enough ? Math.max(0.5, thresholdForFalseMatchRate(after, labels, opts.targetFmr ?? 0.01)) : 1;
  const params = { ...draft, matchThreshold, uncertainThreshold: Math.min(0.3, matchThreshold / 2) };
  const pos = after.filter((_, i) => labels[i]);
  const falseAcc = after.filter((p, i) => !labels[i] && p >= matchThreshold).length;
  return {
    params,
    n: samples.length,
    positives: nPos,
    aucBefore: rocAuc(before, labels),
    aucAfter: rocAuc(after, labels),
    acceptRate: pos.length ? pos.filter((p) => p >= matchThreshold).length / pos.length : 0,
    falseMatchRate: samples.length ? falseAcc / samples.length : 0,
  };
}
