/**
 * A calibration fitted on every owner's labelled answers (docs/recognition.md, "Calibration pooled
 * across owners"). A sample is one labelled answer's scores (the top candidate's evidence), how
 * many photos the query had, and whether the answer was right, wrong or a stranger: nothing that
 * names a photo, an animal or its owner crosses accounts. The owner is kept here only as an opaque
 * group, because one owner's answers are alike (same herd, same camera, same labelling habits):
 *
 * - an owner's samples count as correlated (Kish's effective sample, threshold.ts, grouped by owner),
 * - no owner weighs more than `maxPerOwner` samples (the newest),
 * - a fit needs samples from `minOwners` independent owners,
 * - an owner whose labels disagree with what the others' labels say of the same scores (confirming
 *   answers the evidence calls strangers, or the reverse) is set aside and named to the operator,
 * - and the threshold must keep its bound with any one owner's samples removed: the served
 *   threshold is the strictest of those, so no single owner can loosen it.
 *
 * Pure: the job (pool-calibration.ts) reads the samples and stores the result.
 */
import type { CalibrationParams, Evidence, SeveralScope } from '../vision/calibrate.js';
import { fitFusion, fusedProbability, type FusionModel } from '../vision/fusion.js';
import { chooseThreshold, clopperPearsonUpper, minimumSample, type ScoredQuery, type ThresholdChoice } from '../vision/threshold.js';

export type SampleOutcome = 'right' | 'wrong' | 'stranger';

export interface PoolSample {
  /** Opaque: which owner labelled it, for grouping, the cap and setting an owner aside. */
  owner: string;
  evidence: Evidence;
  outcome: SampleOutcome;
  /** Photos in the query (1, 2, …). */
  views: number;
  /** Orders an owner's samples, newest last (the cap keeps the newest). */
  order?: number;
}

export interface PooledFitOptions {
  target?: number;
  alpha?: number;
  minOwners?: number;
  maxPerOwner?: number;
  /** |z| of an owner's right answers against the others' fit beyond which the owner is set aside. */
  outlierZ?: number;
  /** Query sizes above one that get a threshold of their own. */
  severalSizes?: readonly number[];
  source?: string;
}

export interface SetAside {
  owner: string;
  samples: number;
  /** Right answers the owner labelled, and how many the others' fit expected of the same scores. */
  right: number;
  expected: number;
  z: number;
}

export interface PooledFitReport {
  params: CalibrationParams | null;
  reason: string | null;
  owners: number;
  samples: number;
  /** Samples the per-owner cap left out. */
  capped: number;
  effective_n: number;
  design_effect: number;
  threshold: number | null;
  /** The threshold of every owner together, before the leave-one-owner-out check. */
  threshold_all: number | null;
  false_matches: number;
  fmr_upper: number;
  correct_match_rate: number;
  set_aside: SetAside[];
  several: { photos: number; samples: number; threshold: number | null; reason: string | null }[];
}

const DEFAULTS: Required<Omit<PooledFitOptions, 'source'>> = {
  target: 0.01,
  alpha: 0.05,
  minOwners: 3,
  maxPerOwner: 300,
  outlierZ: 4,
  severalSizes: [2, 3],
};

/** The newest `cap` samples of each owner, for each number of photos. */
export function capPerOwner<T extends PoolSample>(samples: readonly T[], cap: number): T[] {
  const by = new Map<string, T[]>();
  for (const s of samples) {
    const key = `${s.owner}|${s.views}`;
    const list = by.get(key);
    if (list) list.push(s);
    else by.set(key, [s]);
  }
  return [...by.values()].flatMap((list) => [...list].sort((a, b) => (a.order ?? 0) - (b.order ?? 0)).slice(-cap));
}

const asQuery = (s: PoolSample) => ({
  evidence: s.evidence,
  same: s.outcome === 'right',
  group: s.owner,
  openSet: s.outcome === 'stranger',
});

/**
 * Owners whose labels the others' labels contradict: with a fusion model fitted without them, the
 * number of answers they call right is compared with the number that model expects of their
 * scores (a binomial sum); beyond `z` standard deviations either way, they are set aside.
 */
export function disagreeingOwners(samples: readonly PoolSample[], z = DEFAULTS.outlierZ): SetAside[] {
  // One at a time, the most extreme first: a liar's labels bend the others' fit, and with them
  // still in, an honest owner can look out of line.
  const out: SetAside[] = [];
  let rest = [...samples];
  for (;;) {
    const worst = mostDisagreeing(rest);
    if (!worst || Math.abs(worst.z) <= z) return out;
    out.push(worst);
    rest = rest.filter((s) => s.owner !== worst.owner);
  }
}

function mostDisagreeing(samples: readonly PoolSample[]): SetAside | null {
  const owners = [...new Set(samples.map((s) => s.owner))];
  if (owners.length < 3) return null;
  let worst: SetAside | null = null;
  for (const o of owners) {
    const others = samples.filter((s) => s.owner !== o);
    const rights = others.filter((s) => s.outcome === 'right').length;
    if (rights < 10 || others.length - rights < 10) continue;
    const { model } = fitFusion(others.map(asQuery), { folds: 2 });
    const own = samples.filter((s) => s.owner === o);
    const ps = own.map((s) => fusedProbability(model, s.evidence));
    const expected = ps.reduce((a, p) => a + p, 0);
    const variance = ps.reduce((a, p) => a + p * (1 - p), 0);
    const right = own.filter((s) => s.outcome === 'right').length;
    const score = (right - expected) / Math.sqrt(variance + 1);
    if (!worst || Math.abs(score) > Math.abs(worst.z))
      worst = { owner: o, samples: own.length, right, expected: round(expected), z: round(score) };
  }
  return worst;
}

/**
 * The lowest threshold that keeps the bound with every owner (`all`, chosen on `scored` by the
 * caller), and with any one owner removed; null if any fails.
 */
function robustThreshold(
  scored: readonly ScoredQuery[],
  all: ThresholdChoice,
  target: number,
  alpha: number,
): { threshold: number | null; all: number | null; why: string | null } {
  if (all.threshold === null) return { threshold: null, all: null, why: 'no threshold keeps the bound on the pooled answers' };
  let t = all.threshold;
  for (const o of new Set(scored.map((s) => s.group!))) {
    const without = chooseThreshold(
      scored.filter((s) => s.group !== o),
      target,
      alpha,
    );
    if (without.threshold === null)
      return { threshold: null, all: all.threshold, why: "the bound does not hold with one owner's answers removed" };
    t = Math.max(t, without.threshold);
  }
  return { threshold: t, all: all.threshold, why: null };
}

/** The pooled calibration for one cell (kind, species, herd size band): one-photo fit plus one threshold per several-photo size. */
export function fitPooledCalibration(input: readonly PoolSample[], options: PooledFitOptions = {}): PooledFitReport {
  const o = { ...DEFAULTS, ...options };
  const capped = capPerOwner(input, o.maxPerOwner);
  const setAside = disagreeingOwners(
    capped.filter((s) => s.views === 1),
    o.outlierZ,
  );
  const excluded = new Set(setAside.map((s) => s.owner));
  const kept = capped.filter((s) => !excluded.has(s.owner));
  const one = kept.filter((s) => s.views === 1);
  const owners = new Set(one.map((s) => s.owner)).size;
  const minimum = minimumSample(o.target, o.alpha);
  const base: PooledFitReport = {
    params: null,
    reason: null,
    owners,
    samples: one.length,
    capped: input.length - capped.length,
    effective_n: 0,
    design_effect: 1,
    threshold: null,
    threshold_all: null,
    false_matches: 0,
    fmr_upper: clopperPearsonUpper(0, one.length, o.alpha),
    correct_match_rate: 0,
    set_aside: setAside,
    several: [],
  };
  const refuse = (reason: string): PooledFitReport => ({ ...base, reason });
  if (owners < o.minOwners) return refuse(`answers from ${owners} owners; ${o.minOwners} independent owners are needed`);
  const rights = one.filter((s) => s.outcome === 'right').length;
  const strangers = one.filter((s) => s.outcome === 'stranger').length;
  if (rights < 10 || one.length - rights < 10) return refuse(`${rights} right and ${one.length - rights} other answers are too few`);
  if (strangers < minimum)
    return refuse(
      `${strangers} answers about animals, trees or fruit never enrolled; at least ${minimum} are needed to bound false matches`,
    );
  const queries = one.map(asQuery);
  const { model, outOfFold } = fitFusion(queries);
  const scored: ScoredQuery[] = queries.map((q, i) => ({ p: outOfFold[i]!, right: q.same, group: q.group, openSet: q.openSet }));
  const choice = chooseThreshold(scored, o.target, o.alpha);
  const eff = { effective_n: choice.tightest.effectiveN, design_effect: round(choice.tightest.deff) };
  if (choice.tightest.effectiveN < minimum)
    return {
      ...refuse(
        `${choice.tightest.queries} answers worth about ${choice.tightest.effectiveN} independent ones (one owner's answers are alike) cannot show ${o.target * 100}% false matches; ${minimum} are needed`,
      ),
      ...eff,
    };
  const robust = robustThreshold(scored, choice, o.target, o.alpha);
  if (robust.threshold === null) return { ...refuse(robust.why!), ...eff, threshold_all: robust.all };
  const t = robust.threshold;
  const falses = scored.filter((s) => s.p >= t && !s.right).length;
  const params: CalibrationParams = {
    intercept: 0,
    coef: [],
    source: o.source ?? 'pooled',
    matchThreshold: t,
    uncertainThreshold: Math.min(0.1, t / 2),
    fusion: model,
  };
  const several = o.severalSizes.map((size) => severalFit(kept, size, model, o));
  const scopes = several.flatMap((s) => (s.scope ? [s.scope] : []));
  if (scopes.length) params.several = scopes;
  return {
    ...base,
    ...eff,
    params,
    threshold: t,
    threshold_all: robust.all,
    false_matches: falses,
    fmr_upper: round(choice.fmrUpper),
    correct_match_rate: round(rights ? scored.filter((s) => s.p >= t && s.right).length / rights : 0),
    several: several.map((s) => s.report),
  };
}

/**
 * A several-photo size's threshold on the one-photo fusion model (the engine fuses a query's photos
 * into one evidence and scores it with the same model): queries of exactly that many photos, with
 * the same rules. The model never saw these queries, so their probabilities are honest.
 */
function severalFit(
  samples: readonly PoolSample[],
  size: number,
  model: FusionModel,
  o: typeof DEFAULTS & PooledFitOptions,
): { scope: SeveralScope | null; report: PooledFitReport['several'][number] } {
  const own = samples.filter((s) => s.views === size);
  const owners = new Set(own.map((s) => s.owner)).size;
  const report = (threshold: number | null, reason: string | null) => ({ photos: size, samples: own.length, threshold, reason });
  if (owners < o.minOwners) return { scope: null, report: report(null, `answers from ${owners} owners`) };
  const scored: ScoredQuery[] = own.map((s) => ({
    p: fusedProbability(model, s.evidence),
    right: s.outcome === 'right',
    group: s.owner,
    openSet: s.outcome === 'stranger',
  }));
  const choice = chooseThreshold(scored, o.target, o.alpha);
  const robust = robustThreshold(scored, choice, o.target, o.alpha);
  if (robust.threshold === null) return { scope: null, report: report(null, robust.why) };
  const t = robust.threshold;
  return {
    scope: {
      groupSize: size,
      matchThreshold: t,
      queries: own.length,
      falseMatches: scored.filter((s) => s.p >= t && !s.right).length,
      fmrUpper: choice.fmrUpper,
    },
    report: report(round(t), null),
  };
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;
