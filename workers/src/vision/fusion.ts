/**
 * Calibrated evidence fusion (WildFusion, arXiv 2408.12934): every score the pipeline computes is
 * calibrated on its own into a probability that the top answer is right (isotonic regression by
 * pool-adjacent-violators, Platt scaling where data are few), then the calibrated scores are
 * fused by a small logistic model over their log-odds. The fused probability is what a client
 * sees (calibrate.ts `probability` uses it whenever the params carry a fusion model).
 *
 * A score that is missing (no fine-tuned backbone: no learned cosine) adds nothing: each one
 * enters the fusion as its log-odds *above the base rate*, so an absent score is zero evidence.
 */
import type { Evidence } from './evidence.js';

/** Every score the pipeline computes for one (query, candidate) pair, higher = more likely the same. */
export const SCORE_NAMES = ['learned', 'learned_margin', 'global', 'global_margin', 'log_local', 'local_margin', 'spread', 'rank'] as const;
export type ScoreName = (typeof SCORE_NAMES)[number];

/** The scores of one candidate; null where the pipeline did not compute it. */
export function scoresOf(e: Evidence): Record<ScoreName, number | null> {
  return {
    learned: e.learned ?? null,
    learned_margin: e.learnedMargin ?? null,
    global: e.global,
    global_margin: e.globalMargin,
    log_local: Math.log1p(e.local),
    local_margin: e.localMargin,
    spread: e.spread,
    // Shortlist rank (0 = first): fewer steps down the list is evidence for.
    rank: e.rank === undefined ? null : -Math.log1p(e.rank),
  };
}

/** One score's calibration: score → probability that the top answer is right. */
export type ScoreCalibrator = { method: 'isotonic'; x: number[]; p: number[] } | { method: 'platt'; a: number; b: number };

export interface FusionModel {
  /** Share of right answers among the fitting samples. */
  prior: number;
  calibrators: Partial<Record<ScoreName, ScoreCalibrator>>;
  /** Non-negative weight of each calibrated score's log-odds over the prior. */
  weights: Partial<Record<ScoreName, number>>;
  intercept: number;
}

const EPS = 1e-4;
const clampP = (p: number): number => Math.min(1 - EPS, Math.max(EPS, p));
export const logit = (p: number): number => Math.log(clampP(p) / (1 - clampP(p)));
export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * Isotonic regression by pool-adjacent-violators: the non-decreasing step function closest (least
 * squares) to the labels, returned as block centres for linear interpolation. Each block's
 * probability is shrunk towards `prior` by one pseudo-sample, so no score maps to exactly 0 or 1.
 */
export function fitIsotonic(xs: readonly number[], ys: readonly boolean[], prior: number): ScoreCalibrator {
  const order = xs.map((x, i) => [x, ys[i] ? 1 : 0] as const).sort((a, b) => a[0] - b[0]);
  // Blocks: [sum of x, sum of y, count]; equal scores start in one block (they cannot be ordered).
  const blocks: [number, number, number][] = [];
  for (const [x, y] of order) {
    const last = blocks[blocks.length - 1];
    if (last && last[0] / last[2] === x) {
      last[0] += x;
      last[1] += y;
      last[2]++;
    } else blocks.push([x, y, 1]);
    while (blocks.length > 1) {
      const b = blocks[blocks.length - 1]!;
      const a = blocks[blocks.length - 2]!;
      // Equal neighbours are pooled too: a run of negatives is one block, not many tiny ones
      // whose shrunk probabilities would each sit far above the run's true rate.
      if (a[1] / a[2] < b[1] / b[2]) break;
      blocks.splice(blocks.length - 2, 2, [a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
    }
  }
  return { method: 'isotonic', x: blocks.map((b) => b[0] / b[2]), p: blocks.map((b) => (b[1] + prior) / (b[2] + 1)) };
}

/** Platt scaling: a one-score logistic regression, slope kept non-negative (higher is evidence for). */
export function fitPlatt(xs: readonly number[], ys: readonly boolean[]): ScoreCalibrator {
  const n = xs.length;
  const mean = xs.reduce((a, v) => a + v, 0) / Math.max(1, n);
  const sd = Math.sqrt(xs.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, n)) || 1;
  let a = 0;
  let b = 0;
  for (let it = 0; it < 500; it++) {
    let ga = 0;
    let gb = 0;
    for (let i = 0; i < n; i++) {
      const z = (xs[i]! - mean) / sd;
      const err = sigmoid(a * z + b) - (ys[i] ? 1 : 0);
      ga += err * z;
      gb += err;
    }
    // A light L2 on the slope keeps a separable handful of samples from an infinite slope.
    a = Math.max(0, a - 0.5 * (ga / Math.max(1, n) + 0.01 * a));
    b -= 0.5 * (gb / Math.max(1, n));
  }
  return { method: 'platt', a: a / sd, b: b - (a * mean) / sd };
}

export function applyCalibrator(c: ScoreCalibrator, x: number): number {
  if (c.method === 'platt') return clampP(sigmoid(c.a * x + c.b));
  const { x: xs, p } = c;
  if (x <= xs[0]!) return p[0]!;
  if (x >= xs[xs.length - 1]!) return p[p.length - 1]!;
  let lo = 0;
  let hi = xs.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid;
    else hi = mid;
  }
  const t = (x - xs[lo]!) / (xs[hi]! - xs[lo]! || 1);
  return p[lo]! + t * (p[hi]! - p[lo]!);
}

export interface FitFusionOptions {
  /** Fewer samples of either class than this: Platt instead of isotonic (default 20). */
  isotonicMin?: number;
  l2?: number;
}

/** Calibrates each score on the samples that have it. */
function fitCalibrators(
  samples: readonly { evidence: Evidence; same: boolean }[],
  prior: number,
  o: Required<FitFusionOptions>,
): FusionModel['calibrators'] {
  const out: FusionModel['calibrators'] = {};
  const scores = samples.map((s) => scoresOf(s.evidence));
  for (const name of SCORE_NAMES) {
    const xs: number[] = [];
    const ys: boolean[] = [];
    scores.forEach((sc, i) => {
      const v = sc[name];
      if (v !== null && Number.isFinite(v)) {
        xs.push(v);
        ys.push(samples[i]!.same);
      }
    });
    const pos = ys.filter(Boolean).length;
    if (pos === 0 || pos === ys.length) continue;
    const few = Math.min(pos, ys.length - pos) < o.isotonicMin;
    out[name] = few ? fitPlatt(xs, ys) : fitIsotonic(xs, ys, prior);
  }
  return out;
}

/** Each calibrated score's log-odds over the prior (0 where the score or its calibrator is absent). */
function fusionFeatures(m: Pick<FusionModel, 'calibrators' | 'prior'>, e: Evidence): number[] {
  const sc = scoresOf(e);
  const base = logit(m.prior);
  return SCORE_NAMES.map((name) => {
    const c = m.calibrators[name];
    const v = sc[name];
    return c && v !== null && Number.isFinite(v) ? logit(applyCalibrator(c, v)) - base : 0;
  });
}

/** The fused probability that the evidence shows the same individual. */
export function fusedProbability(m: FusionModel, e: Evidence): number {
  const f = fusionFeatures(m, e);
  let z = m.intercept;
  SCORE_NAMES.forEach((name, j) => (z += (m.weights[name] ?? 0) * f[j]!));
  return sigmoid(z);
}

/** Logistic regression over the features, weights kept non-negative (each is evidence for). */
function fitWeights(F: readonly number[][], y: readonly boolean[], l2: number, prior: number): { w: number[]; b: number } {
  const d = SCORE_NAMES.length;
  const m = F.length;
  // One flat typed array and typed accumulators: the same sums in the same order as a loop over
  // the nested arrays (so the same weights, bit for bit), without a bounds-checked lookup per term.
  const X = new Float64Array(m * d);
  const t = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < d; j++) X[i * d + j] = F[i]![j]!;
    t[i] = y[i] ? 1 : 0;
  }
  const w = new Float64Array(d).fill(1 / d);
  const gw = new Float64Array(d);
  let b = logit(prior);
  const n = Math.max(1, m);
  for (let it = 0; it < 1500; it++) {
    gw.fill(0);
    let gb = 0;
    for (let i = 0, row = 0; i < m; i++, row += d) {
      let z = b;
      for (let j = 0; j < d; j++) z += w[j]! * X[row + j]!;
      const err = sigmoid(z) - t[i]!;
      for (let j = 0; j < d; j++) gw[j]! += err * X[row + j]!;
      gb += err;
    }
    for (let j = 0; j < d; j++) w[j] = Math.max(0, w[j]! - 0.1 * (gw[j]! / n + l2 * w[j]!));
    b -= 0.1 * (gb / n);
  }
  return { w: Array.from(w), b };
}

/**
 * Fits the calibrators, then the fusion weights on *cross-fitted* calibrated scores (each sample's
 * calibrated scores come from calibrators fitted without its fold), so the weights are not fitted
 * on an isotonic step that already memorised the sample. Returns the model fitted on everything
 * and each sample's out-of-fold fused probability (for choosing thresholds honestly).
 */
export function fitFusion(
  samples: readonly { evidence: Evidence; same: boolean; group?: string }[],
  opts: FitFusionOptions & { folds?: number } = {},
): { model: FusionModel; outOfFold: number[] } {
  const o: Required<FitFusionOptions> = { isotonicMin: opts.isotonicMin ?? 20, l2: opts.l2 ?? 1e-3 };
  const folds = Math.max(2, opts.folds ?? 5);
  const prior = (samples.filter((s) => s.same).length + 0.5) / (samples.length + 1);
  // Folds by group (an individual's samples together), so no individual calibrates itself.
  const foldOf = samples.map((s, i) => (s.group ? hash(s.group) : i) % folds);
  const F: number[][] = new Array(samples.length);
  for (let f = 0; f < folds; f++) {
    const train = samples.filter((_, i) => foldOf[i] !== f);
    const m = { prior, calibrators: fitCalibrators(train, prior, o) };
    samples.forEach((s, i) => {
      if (foldOf[i] === f) F[i] = fusionFeatures(m, s.evidence);
    });
  }
  const y = samples.map((s) => s.same);
  const { w, b } = fitWeights(F, y, o.l2, prior);
  const model: FusionModel = {
    prior,
    calibrators: fitCalibrators(samples, prior, o),
    weights: Object.fromEntries(SCORE_NAMES.map((n, j) => [n, w[j]!])),
    intercept: b,
  };
  const outOfFold = F.map((f) => sigmoid(f.reduce((z, v, j) => z + w[j]! * v, b)));
  return { model, outOfFold };
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h;
}
