/**
 * The `match` threshold from a sample of answered queries, chosen so that the *upper confidence
 * bound* of the false-match rate (Clopper–Pearson, one-sided) stays within the target for the
 * sample at hand: a small sample cannot vouch for 1%, and then there is no threshold at all
 * (the caller falls back to the kind's defaults and says so).
 */

/** log of n choose k. */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  let s = 0;
  for (let i = 0; i <= k; i++) s += Math.exp(logChoose(n, i) + i * Math.log(p) + (n - i) * Math.log1p(-p));
  return Math.min(1, s);
}

/**
 * One-sided Clopper–Pearson upper bound of a rate from `k` events in `n` trials at confidence
 * `1 - alpha`: the p at which seeing k or fewer events has probability alpha.
 */
export function clopperPearsonUpper(k: number, n: number, alpha = 0.05): number {
  if (n <= 0) return 1;
  if (k >= n) return 1;
  let lo = k / n;
  let hi = 1;
  for (let it = 0; it < 60; it++) {
    const mid = (lo + hi) / 2;
    if (binomialCdf(k, n, mid) > alpha) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The fewest queries that can show a false-match rate bound ≤ target (with none seen). */
export function minimumSample(target: number, alpha = 0.05): number {
  // k = 0: the bound is 1 - alpha^(1/n).
  return Math.ceil(Math.log(alpha) / Math.log1p(-target));
}

/**
 * The most false matches a sample of `n` queries may show while its Clopper–Pearson bound stays
 * within `target`: what a calibration fitted on `n` queries can let through at its threshold.
 * -1 when the sample cannot vouch for the target at all (fewer than minimumSample queries).
 */
export function vouchedFalses(n: number, target = 0.01, alpha = 0.05): number {
  let k = -1;
  while (k + 1 < n && clopperPearsonUpper(k + 1, n, alpha) <= target) k++;
  return k;
}

export interface ThresholdChoice {
  /** The lowest probability at which a top answer is a `match`; null: the sample cannot vouch for the target. */
  threshold: number | null;
  /** Queries in the sample (the false-match rate's denominator). */
  n: number;
  /** False matches in the sample at the threshold. */
  falseMatches: number;
  /** The Clopper–Pearson upper bound of the false-match rate at the threshold. */
  fmrUpper: number;
  /** Share of right top answers that are `match` at the threshold. */
  correctMatchRate: number;
}

/**
 * Lowest threshold over the sample's probabilities whose false matches (wrong or not-enrolled
 * queries at or above it) have an upper bound within `target`. Each sample is one query's top
 * answer: `right` when it named the individual shown.
 */
export function chooseThreshold(samples: readonly { p: number; right: boolean }[], target = 0.01, alpha = 0.05): ThresholdChoice {
  const n = samples.length;
  const none: ThresholdChoice = { threshold: null, n, falseMatches: 0, fmrUpper: clopperPearsonUpper(0, n, alpha), correctMatchRate: 0 };
  if (n === 0) return none;
  const sorted = [...samples].sort((a, b) => b.p - a.p);
  const rights = samples.filter((s) => s.right).length;
  let best: ThresholdChoice | null = null;
  let falses = 0;
  let correct = 0;
  // Walk down from the highest probability; a cut is only possible between distinct values.
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i]!;
    if (s.right) correct++;
    else falses++;
    if (i + 1 < sorted.length && sorted[i + 1]!.p === s.p) continue;
    const upper = clopperPearsonUpper(falses, n, alpha);
    if (upper > target) break;
    best = { threshold: s.p, n, falseMatches: falses, fmrUpper: upper, correctMatchRate: rights ? correct / rights : 0 };
  }
  return best ?? none;
}
