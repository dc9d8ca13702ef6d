/**
 * One calibration from a sample of answered queries: fused probability (fusion.ts) plus the
 * `match` threshold whose false-match upper bound holds (threshold.ts). Used per owner and kind
 * (recognition/owner-calibration.ts, from the owner's gallery and labels) and by the benchmark.
 * With too little data it returns no params and says why; the caller then keeps the kind's
 * defaults and tells the client.
 */
import { rocAuc, type CalibrationParams, type Evidence } from './calibrate.js';
import { fitFusion } from './fusion.js';
import { chooseThreshold, clopperPearsonUpper, minimumSample } from './threshold.js';

/** One query's top answer. `group`: the individual shown (for folds that keep it together). */
export interface QuerySample {
  evidence: Evidence;
  /** The top answer named the individual shown. */
  same: boolean;
  group: string;
  /** The individual shown was hidden from the gallery (an open-set, "not enrolled" query). */
  openSet?: boolean;
}

export interface FusedFitOptions {
  /** Target false-match rate (default 0.01). */
  targetFmr?: number;
  /** One-sided confidence of the bound is 1 − alpha (default 0.05). */
  alpha?: number;
  /** Fewest distinct individuals behind the sample (default 5). */
  minIndividuals?: number;
  source?: string;
}

export interface FusedFitReport {
  params: CalibrationParams | null;
  /** Why there are no params (too few queries, individuals or right answers); null when fitted. */
  reason: string | null;
  n: number;
  /**
   * Independent queries of the kind with the fewest (never-enrolled or enrolled; threshold.ts,
   * effectiveSample): photos of one individual that answer alike count as fewer. Each kind's
   * bound, and the minimum, are judged on its own count.
   */
  effective_n?: number;
  /** Kish's design effect behind `effective_n` (1: the queries are independent). */
  design_effect?: number;
  right: number;
  open_set: number;
  individuals: number;
  /** ROC AUC of the out-of-fold fused probability, right versus wrong or not-enrolled. */
  auc: number;
  threshold: number | null;
  false_matches: number;
  /** Clopper–Pearson upper bound of the false-match rate at the threshold. */
  fmr_upper: number;
  correct_match_rate: number;
  /** Fewest queries that could show the target at all. */
  minimum_sample: number;
}

export function fitFusedCalibration(samples: readonly QuerySample[], opts: FusedFitOptions = {}): FusedFitReport {
  const target = opts.targetFmr ?? 0.01;
  const alpha = opts.alpha ?? 0.05;
  const n = samples.length;
  const right = samples.filter((s) => s.same).length;
  const individuals = new Set(samples.map((s) => s.group)).size;
  const minimum = minimumSample(target, alpha);
  const base = {
    n,
    right,
    open_set: samples.filter((s) => s.openSet).length,
    individuals,
    minimum_sample: minimum,
    auc: Number.NaN,
    threshold: null,
    false_matches: 0,
    fmr_upper: clopperPearsonUpper(0, n, alpha),
    correct_match_rate: 0,
  };
  const refuse = (reason: string): FusedFitReport => ({ ...base, params: null, reason });
  if (n < minimum)
    return refuse(
      `${n} queries cannot show a false-match rate within ${target * 100}% at ${(1 - alpha) * 100}% confidence; ${minimum} are needed`,
    );
  if (individuals < (opts.minIndividuals ?? 5))
    return refuse(`${individuals} individuals are too few to stand for the ones never enrolled`);
  if (right < 10 || n - right < 10) return refuse(`${right} right and ${n - right} wrong answers are too few to calibrate`);
  const { model, outOfFold } = fitFusion(samples);
  const labels = samples.map((s) => s.same);
  const scored = outOfFold.map((p, i) => ({ p, right: labels[i]!, group: samples[i]!.group, openSet: samples[i]!.openSet === true }));
  // The bound holds in each kind of query on its own (threshold.ts): each must be worth the minimum.
  const choice = chooseThreshold(scored, target, alpha);
  const { tightest } = choice;
  const effective = { effective_n: tightest.effectiveN, design_effect: Math.round(tightest.deff * 100) / 100 };
  if (tightest.effectiveN < minimum) {
    const what = tightest.openSet
      ? 'queries of individuals hidden from the gallery (standing for ones never enrolled)'
      : 'queries of enrolled individuals';
    const worth =
      tightest.deff > 1.005
        ? `, worth about ${tightest.effectiveN} independent ones because photos of one individual answer alike (design effect ${effective.design_effect})`
        : '';
    return {
      ...refuse(
        `${tightest.queries} ${what}${worth} cannot show a false-match rate within ${target * 100}% at ${(1 - alpha) * 100}% confidence; ${minimum} are needed`,
      ),
      ...effective,
      fmr_upper: clopperPearsonUpper(0, tightest.effectiveN, alpha),
    };
  }
  const report = {
    ...base,
    ...effective,
    auc: rocAuc(outOfFold, labels),
    threshold: choice.threshold,
    false_matches: choice.falseMatches,
    fmr_upper: choice.fmrUpper,
    correct_match_rate: choice.correctMatchRate,
  };
  if (choice.threshold === null) {
    // The scores separate too little for any threshold to keep the bound: calibrated, but no `match`.
    const params: CalibrationParams = {
      intercept: 0,
      coef: [],
      matchThreshold: 1.01,
      uncertainThreshold: 0.05,
      source: `${opts.source ?? 'fused'} (no threshold holds the bound: never match)`,
      fusion: model,
    };
    return { ...report, params, reason: null };
  }
  const params: CalibrationParams = {
    intercept: 0,
    coef: [],
    source: opts.source ?? 'fused',
    matchThreshold: choice.threshold,
    // Candidates below a tenth are not worth showing; a shortlist starts well below `match`.
    uncertainThreshold: Math.min(0.1, choice.threshold / 2),
    fusion: model,
  };
  return { ...report, params, reason: null };
}
