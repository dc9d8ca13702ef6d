/**
 * The `match` threshold from a sample of answered queries, chosen so that the *upper confidence
 * bound* of the false-match rate (Clopper–Pearson, one-sided) stays within the target for the
 * sample at hand: a small sample cannot vouch for 1%, and then there is no threshold at all
 * (the caller falls back to the kind's defaults and says so).
 *
 * The bound counts independent queries, not photos. A gallery's photos of one individual are
 * often frames of one video: held out, they answer alike, so 34 of them say little more than one.
 * On a 5-cow holstein-dev herd the fit counted 338 queries, promised 0.88%, and let through 7.8%
 * false matches on real photos of other cows (benchmarks/results/fit-holds-*.json). Samples that
 * name their individual (`group`) are therefore counted by Kish's effective sample size, and the
 * bound is Clopper–Pearson on it (Korn & Graubard 1998, for proportions from clustered samples).
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

/**
 * Kish's design effect of a sample clustered by `group`: 1 + (m − 1)·ICC, where ICC is the
 * one-way ANOVA intraclass correlation of `value` within groups (clipped to [0, 1]) and m the
 * size-weighted mean group size (Σ nᵢ² / N, the conservative choice for unequal groups). A
 * sample whose values do not vary at all says nothing about independence: ICC 1.
 */
export function designEffect(samples: readonly { value: number; group: string }[]): { deff: number; icc: number; clusterSize: number } {
  const n = samples.length;
  const byGroup = new Map<string, number[]>();
  for (const s of samples) byGroup.set(s.group, [...(byGroup.get(s.group) ?? []), s.value]);
  const sizes = [...byGroup.values()].map((v) => v.length);
  const m = n ? sizes.reduce((a, b) => a + b * b, 0) / n : 1;
  const k = byGroup.size;
  if (n === 0 || m <= 1) return { deff: 1, icc: 0, clusterSize: m };
  const mean = samples.reduce((a, s) => a + s.value, 0) / n;
  let ssb = 0;
  let ssw = 0;
  for (const v of byGroup.values()) {
    const gm = v.reduce((a, b) => a + b, 0) / v.length;
    ssb += v.length * (gm - mean) ** 2;
    for (const x of v) ssw += (x - gm) ** 2;
  }
  let icc = 1;
  if (k >= 2 && n > k && ssb + ssw > 1e-12) {
    const msb = ssb / (k - 1);
    const msw = ssw / (n - k);
    const n0 = (n - sizes.reduce((a, b) => a + b * b, 0) / n) / (k - 1);
    const denom = msb + (n0 - 1) * msw;
    icc = denom > 0 ? Math.min(1, Math.max(0, (msb - msw) / denom)) : 1;
  }
  return { deff: 1 + (m - 1) * icc, icc, clusterSize: m };
}

/**
 * How many independent queries a clustered sample is worth for the false-match bound: its size
 * over the design effect of the queries that could be false matches (those not right), whose
 * values are their probabilities. All queries, when none carries a group.
 */
export function effectiveSample(samples: readonly { p: number; right: boolean; group?: string }[]): { n: number; deff: number } {
  if (!samples.length || samples.some((s) => s.group === undefined)) return { n: samples.length, deff: 1 };
  const { deff } = designEffect(samples.filter((s) => !s.right).map((s) => ({ value: s.p, group: s.group! })));
  return { n: Math.floor(samples.length / deff), deff };
}

export interface ThresholdChoice {
  /** The lowest probability at which a top answer is a `match`; null: the sample cannot vouch for the target. */
  threshold: number | null;
  /** Queries in the sample (the false-match rate's denominator). */
  n: number;
  /** Independent queries they are worth (effectiveSample): the bound's denominator. */
  effectiveN: number;
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
 * answer: `right` when it named the individual shown; with `group` (the individual shown) on
 * every sample, the bound counts effective queries and false matches (effectiveSample).
 */
export function chooseThreshold(samples: readonly { p: number; right: boolean; group?: string }[], target = 0.01, alpha = 0.05): ThresholdChoice {
  const n = samples.length;
  const eff = effectiveSample(samples);
  // A false match among clustered queries counts as one in deff, rounded up: never fewer than seen once.
  const bound = (falses: number) => clopperPearsonUpper(Math.ceil(falses / eff.deff), eff.n, alpha);
  const none: ThresholdChoice = { threshold: null, n, effectiveN: eff.n, falseMatches: 0, fmrUpper: bound(0), correctMatchRate: 0 };
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
    const upper = bound(falses);
    if (upper > target) break;
    best = { threshold: s.p, n, effectiveN: eff.n, falseMatches: falses, fmrUpper: upper, correctMatchRate: rights ? correct / rights : 0 };
  }
  return best ?? none;
}
