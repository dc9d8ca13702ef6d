/**
 * The `match` threshold from a sample of answered queries, chosen so that the *upper confidence
 * bound* of the false-match rate (Clopper–Pearson, one-sided) stays within the target for the
 * sample at hand: a small sample cannot vouch for 1%, and then there is no threshold at all
 * (the caller falls back to the kind's defaults and says so).
 *
 * The rate is bounded in each kind of query on its own, as biometrics defines it (ISO/IEC
 * 19795-1): among queries of individuals never enrolled (open set: any `match` is false) and among
 * queries of enrolled ones (a `match` to another is false), and the threshold must keep both
 * bounds. A rate over both together holds only for the sample's own mix of strangers, half of it;
 * a farmer surveying a paddock of strangers meets twice the promised rate. On holstein-dev herds of
 * 5 to 24 cows the mixed bound promised under 1% and let more false matches through on real photos
 * (benchmarks/results/fit-holds-holstein-dev-2026-11-25-photo-count.json; benchmarks/results/README.md,
 * "A fit's promise against real photos").
 *
 * Queries count as independent only as far as they are: within a kind, samples that name their
 * individual (`group`) are counted by Kish's effective sample size, and the bound is
 * Clopper–Pearson on it (Korn & Graubard 1998, for proportions from clustered samples).
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
  for (const s of samples) {
    const list = byGroup.get(s.group);
    if (list) list.push(s.value);
    else byGroup.set(s.group, [s.value]);
  }
  const sumSquares = [...byGroup.values()].reduce((a, v) => a + v.length * v.length, 0);
  const m = n ? sumSquares / n : 1;
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
    const n0 = (n - sumSquares / n) / (k - 1);
    const denom = msb + (n0 - 1) * msw;
    icc = denom > 0 ? Math.min(1, Math.max(0, (msb - msw) / denom)) : 1;
  }
  return { deff: 1 + (m - 1) * icc, icc, clusterSize: m };
}

/** A query's top answer, as the threshold search sees it. */
export interface ScoredQuery {
  p: number;
  /** The top answer named the individual shown. */
  right: boolean;
  /** The individual shown (for the design effect). */
  group?: string;
  /** The individual shown was not in the gallery: every `match` is false. Unset on all: one kind of query. */
  openSet?: boolean;
}

/** The kinds of query a bound holds in: never-enrolled and enrolled when the sample says which, else one. */
function queryKinds<T extends ScoredQuery>(samples: readonly T[]): { openSet: boolean | null; samples: T[] }[] {
  if (!samples.some((s) => s.openSet !== undefined)) return [{ openSet: null, samples: [...samples] }];
  return [
    { openSet: true, samples: samples.filter((s) => s.openSet) },
    { openSet: false, samples: samples.filter((s) => !s.openSet) },
  ];
}

/**
 * How many independent queries a clustered sample of one kind is worth: its size over the design
 * effect, within individuals, of what its false matches are drawn from. Among enrolled queries
 * that is whether the top answer was wrong (their right answers are alike within an individual and
 * can never be false; no wrong answer at all: no design effect, as Korn and Graubard set it).
 * Among never-enrolled ones every answer is wrong, so it is their probabilities. All of them,
 * when any lacks a group.
 */
export function effectiveSample(samples: readonly ScoredQuery[]): { n: number; deff: number } {
  if (!samples.length || samples.some((s) => s.group === undefined)) return { n: samples.length, deff: 1 };
  const enrolled = samples.every((s) => s.openSet === false);
  if (enrolled && (samples.every((s) => s.right) || samples.every((s) => !s.right))) return { n: samples.length, deff: 1 };
  const { deff } = designEffect(samples.map((s) => ({ value: enrolled ? (s.right ? 0 : 1) : s.p, group: s.group! })));
  return { n: Math.floor(samples.length / deff), deff };
}

export interface ThresholdChoice {
  /** The lowest probability at which a top answer is a `match`; null: the sample cannot vouch for the target. */
  threshold: number | null;
  /** Queries in the sample. */
  n: number;
  /** The kind of query with the fewest independent queries (effectiveSample): whether the sample can vouch at all. */
  tightest: { openSet: boolean | null; queries: number; effectiveN: number; deff: number };
  /** False matches in the sample at the threshold. */
  falseMatches: number;
  /** The larger of the kinds' Clopper–Pearson upper bounds of the false-match rate at the threshold. */
  fmrUpper: number;
  /** Share of right top answers that are `match` at the threshold. */
  correctMatchRate: number;
}

/**
 * Lowest threshold over the sample's probabilities whose false matches (wrong or not-enrolled
 * queries at or above it) have an upper bound within `target` in every kind of query
 * (queryKinds), each counted by its effective sample.
 */
export function chooseThreshold(samples: readonly ScoredQuery[], target = 0.01, alpha = 0.05): ThresholdChoice {
  const n = samples.length;
  const kinds = queryKinds(samples).map((k) => ({ ...k, eff: effectiveSample(k.samples), falses: 0 }));
  const kindOf = new Map<ScoredQuery, (typeof kinds)[number]>();
  for (const k of kinds) for (const s of k.samples) kindOf.set(s, k);
  const t = kinds.reduce((a, b) => (b.eff.n < a.eff.n ? b : a));
  const tightest = { openSet: t.openSet, queries: t.samples.length, effectiveN: t.eff.n, deff: t.eff.deff };
  // A false match among clustered queries counts as one in deff, rounded up: never fewer than seen once.
  const bound = () => Math.max(...kinds.map((k) => clopperPearsonUpper(Math.ceil(k.falses / k.eff.deff), k.eff.n, alpha)));
  const none: ThresholdChoice = { threshold: null, n, tightest, falseMatches: 0, fmrUpper: bound(), correctMatchRate: 0 };
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
    else {
      falses++;
      kindOf.get(s)!.falses++;
    }
    if (i + 1 < sorted.length && sorted[i + 1]!.p === s.p) continue;
    const upper = bound();
    if (upper > target) break;
    best = { threshold: s.p, n, tightest, falseMatches: falses, fmrUpper: upper, correctMatchRate: rights ? correct / rights : 0 };
  }
  return best ?? none;
}

/**
 * The lowest threshold at which a sample keeps the bound, as chooseThreshold, except that a sample
 * whose highest answer is already a false match still vouches for a threshold just above its
 * highest false answer, when it is large enough to show the target with none seen: no query it
 * holds is then a false match. Where the scores separate poorly (striped coats) that threshold sits
 * high, but it exists. Null only when the sample cannot vouch for the target at all.
 */
export function safeThreshold(
  samples: readonly ScoredQuery[],
  target = 0.01,
  alpha = 0.05,
): (ThresholdChoice & { threshold: number }) | null {
  const c = chooseThreshold(samples, target, alpha);
  if (c.threshold !== null) return c as ThresholdChoice & { threshold: number };
  if (c.tightest.effectiveN < minimumSample(target, alpha) || c.fmrUpper > target) return null;
  const falses = samples.filter((s) => !s.right).map((s) => s.p);
  const above = falses.length ? Math.max(...falses) + 1e-6 : 0;
  const rights = samples.filter((s) => s.right);
  return {
    ...c,
    threshold: above,
    falseMatches: 0,
    correctMatchRate: rights.length ? rights.filter((s) => s.p >= above).length / rights.length : 0,
  };
}
