import { describe, expect, it } from 'vitest';
import { probability, rocAuc, type Evidence } from './calibrate.js';
import { applyCalibrator, fitFusion, fitIsotonic, fitPlatt, fusedProbability } from './fusion.js';
import { fitFusedCalibration, type QuerySample } from './fused-fit.js';
import {
  chooseThreshold,
  clopperPearsonUpper,
  designEffect,
  effectiveSample,
  minimumSample,
  safeThreshold,
  vouchedFalses,
} from './threshold.js';
import { mulberry32 } from './testing/synthetic.js';

/**
 * Generated open-set queries: `right` top answers, wrong ones among enrolled individuals, and
 * not-enrolled queries (whose top answer is always wrong). The learned cosine separates best,
 * inliers next, the base cosine barely; a share of samples has no learned score at all.
 */
function generate(n: number, seed: number, opts: { pRight?: number; noLearned?: number } = {}): QuerySample[] {
  const rnd = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  return Array.from({ length: n }, (_, i) => {
    const openSet = i % 2 === 1;
    const same = !openSet && rnd() < (opts.pRight ?? 0.7);
    const s = same ? 1 : 0;
    const learned = 0.45 + 0.15 * s + 0.08 * gauss();
    const evidence: Evidence = {
      global: 0.7 + 0.03 * s + 0.05 * gauss(),
      local: Math.max(0, Math.exp(1.5 + 1.2 * s + 0.6 * gauss()) - 1),
      globalMargin: 0.01 * s + 0.02 * gauss(),
      localMargin: 0.6 * s + 0.5 * gauss(),
      spread: Math.min(1, Math.max(0, 0.2 + 0.2 * s + 0.1 * gauss())),
      rank: Math.max(0, Math.round(same ? Math.abs(gauss()) : 3 * Math.abs(gauss()) + 1)),
      ...(rnd() < (opts.noLearned ?? 0) ? {} : { learned, learnedMargin: 0.12 * s + 0.05 * gauss() }),
    };
    return { evidence, same, group: `ind-${Math.floor(rnd() * 40)}`, openSet };
  });
}

describe('isotonic calibration (pool-adjacent-violators)', () => {
  it('pools violators into a non-decreasing step function, shrunk towards the prior', () => {
    const c = fitIsotonic([1, 2, 3, 4, 5, 6], [false, true, false, false, true, true], 0.5);
    if (c.method !== 'isotonic') throw new Error('expected isotonic');
    // Blocks: {1} (0), {2,3,4} (1 of 3), {5,6} (2 of 2), each with one pseudo-sample at the prior.
    expect(c.x).toEqual([1, 3, 5.5]);
    expect(c.p).toEqual([0.5 / 2, 1.5 / 4, 2.5 / 3]);
    for (let i = 1; i < c.p.length; i++) expect(c.p[i]).toBeGreaterThanOrEqual(c.p[i - 1]!);
    // Interpolates between block centres and clamps beyond them.
    expect(applyCalibrator(c, 4.25)).toBeCloseTo((1.5 / 4 + 2.5 / 3) / 2, 10);
    expect(applyCalibrator(c, -10)).toBe(0.25);
    expect(applyCalibrator(c, 99)).toBeCloseTo(2.5 / 3, 12);
  });

  it('matches observed frequencies on generated scores (reliability within 5 points per decile)', () => {
    const rnd = mulberry32(11);
    // True P(right | x) = x² on [0, 1]: non-linear, which a single logistic cannot follow.
    const xs = Array.from({ length: 6000 }, () => rnd());
    const ys = xs.map((x) => rnd() < x * x);
    const c = fitIsotonic(xs, ys, 0.33);
    for (let d = 0.05; d < 1; d += 0.1) expect(Math.abs(applyCalibrator(c, d) - d * d)).toBeLessThan(0.05);
  });

  it('Platt scaling for few samples keeps a non-negative slope', () => {
    const c = fitPlatt([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [false, false, true, false, true, true]);
    if (c.method !== 'platt') throw new Error('expected platt');
    expect(c.a).toBeGreaterThan(0);
    expect(applyCalibrator(c, 0.9)).toBeGreaterThan(applyCalibrator(c, 0.1));
    // Inverted labels cannot invert the meaning of a score: the slope stays at zero.
    const inv = fitPlatt([0.1, 0.2, 0.8, 0.9], [true, true, false, false]);
    expect(inv.method === 'platt' && inv.a).toBe(0);
  });
});

describe('fusion of calibrated scores', () => {
  const train = generate(1200, 1);
  const test = generate(4000, 2);
  const { model, outOfFold } = fitFusion(train);

  it('separates better than the best single score and is calibrated on fresh data', () => {
    const labels = test.map((s) => s.same);
    const fused = test.map((s) => fusedProbability(model, s.evidence));
    const single = Math.max(
      rocAuc(
        test.map((s) => s.evidence.learned!),
        labels,
      ),
      rocAuc(
        test.map((s) => Math.log1p(s.evidence.local)),
        labels,
      ),
      rocAuc(
        test.map((s) => s.evidence.global),
        labels,
      ),
    );
    expect(rocAuc(fused, labels)).toBeGreaterThan(single + 0.005);
    // Reliability: in each probability band the share of right answers is close to the band.
    for (const [lo, hi] of [
      [0, 0.2],
      [0.2, 0.5],
      [0.5, 0.8],
      [0.8, 1],
    ] as const) {
      const band = test.filter((_, i) => fused[i]! >= lo && fused[i]! < hi);
      if (band.length < 100) continue;
      const mean = band.reduce((a, s) => a + fusedProbability(model, s.evidence), 0) / band.length;
      expect(Math.abs(band.filter((s) => s.same).length / band.length - mean)).toBeLessThan(0.06);
    }
    // Out-of-fold probabilities for threshold choice come with every sample.
    expect(outOfFold).toHaveLength(train.length);
    expect(
      rocAuc(
        outOfFold,
        train.map((s) => s.same),
      ),
    ).toBeGreaterThan(0.9);
  });

  it('weights every score non-negatively, and a missing learned score is no evidence either way', () => {
    for (const w of Object.values(model.weights)) expect(w).toBeGreaterThanOrEqual(0);
    expect(model.weights.learned! + model.weights.learned_margin!).toBeGreaterThan(0);
    const e = test[0]!.evidence;
    const { learned: _l, learnedMargin: _m, ...without } = e;
    const p = fusedProbability(model, without);
    // Without the learned score the answer rests on the others: between the two learned extremes.
    expect(p).toBeLessThan(fusedProbability(model, { ...e, learned: 0.95, learnedMargin: 0.3 }));
    expect(p).toBeGreaterThan(fusedProbability(model, { ...e, learned: 0.2, learnedMargin: -0.2 }));
  });

  it('is what `probability` answers when the params carry it', () => {
    const e = test[3]!.evidence;
    expect(probability(e, { intercept: 0, coef: [], matchThreshold: 0.9, uncertainThreshold: 0.1, source: 't', fusion: model })).toBe(
      fusedProbability(model, e),
    );
  });
});

describe('the match threshold holds its false-match bound', () => {
  it('computes the Clopper–Pearson upper bound', () => {
    // k = 0: 1 − α^(1/n) exactly.
    expect(clopperPearsonUpper(0, 300)).toBeCloseTo(1 - 0.05 ** (1 / 300), 6);
    // Known value: 2 events in 100 trials, one-sided 95% → 0.0616.
    expect(clopperPearsonUpper(2, 100)).toBeCloseTo(0.0616, 3);
    expect(minimumSample(0.01)).toBe(299);
  });

  it('says how many false matches a calibration of n queries can vouch for', () => {
    // Below 299 queries nothing holds 1%; each step is where the bound of one more false match falls within it.
    expect([298, 299, 472, 473, 627, 628, 1200].map((n) => vouchedFalses(n))).toEqual([-1, 0, 0, 1, 1, 2, 6]);
    for (const n of [299, 650, 1200]) {
      const k = vouchedFalses(n);
      expect(clopperPearsonUpper(k, n)).toBeLessThanOrEqual(0.01);
      expect(clopperPearsonUpper(k + 1, n)).toBeGreaterThan(0.01);
    }
  });

  it('on generated open-set data, the false-match rate at the chosen threshold stays within 1% on fresh queries, strangers and enrolled alike', () => {
    let held = 0;
    const sum = { open: 0, enrolled: 0 };
    const runs = 12;
    for (let r = 0; r < runs; r++) {
      const fit = fitFusedCalibration(generate(1200, 100 + r), { source: 'test' });
      expect(fit.reason).toBeNull();
      expect(fit.fmr_upper).toBeLessThanOrEqual(0.01);
      const t = fit.params!.matchThreshold;
      expect(t).toBeLessThan(1);
      const fresh = generate(20_000, 900 + r);
      // The rate holds in each kind of query on its own, whatever the mix a farmer meets.
      const rate = (open: boolean) => {
        const kind = fresh.filter((s) => (s.openSet ?? false) === open);
        return kind.filter((s) => !s.same && probability(s.evidence, fit.params!) >= t).length / kind.length;
      };
      const open = rate(true);
      const enrolled = rate(false);
      if (open <= 0.01 && enrolled <= 0.01) held++;
      sum.open += open;
      sum.enrolled += enrolled;
      // It is not a threshold that refuses everything: most right answers are matches.
      const rights = fresh.filter((s) => s.same);
      expect(rights.filter((s) => probability(s.evidence, fit.params!) >= t).length / rights.length).toBeGreaterThan(0.3);
    }
    // A 95% upper bound: the true rate may exceed 1% in about one sample in twenty.
    expect(held).toBeGreaterThanOrEqual(runs - 1);
    expect(sum.open / runs).toBeLessThan(0.008);
    expect(sum.enrolled / runs).toBeLessThan(0.008);
  });

  it('keeps the bound among strangers even when the sample mixes in many right answers', () => {
    // 300 strangers, 3 of them above 0.9; 900 enrolled, all right. Over all 1,200 queries the
    // rate at 0.9 is 0.25% (bound within 1%); among strangers it is 1%, which 300 cannot vouch for.
    const strangers = Array.from({ length: 300 }, (_, i) => ({ p: i < 3 ? 0.95 : 0.2, right: false, openSet: true }));
    const enrolled = Array.from({ length: 900 }, () => ({ p: 0.97, right: true, openSet: false }));
    expect(chooseThreshold([...strangers, ...enrolled].map(({ p, right }) => ({ p, right }))).threshold).toBe(0.95);
    expect(chooseThreshold([...strangers, ...enrolled]).threshold).toBe(0.97);
  });

  it('a sample whose highest answer is false still vouches for a threshold above every false answer', () => {
    // Striped coats: the strongest false match (background inliers) outscores every right answer.
    const strangers = Array.from({ length: 400 }, (_, i) => ({ p: i === 0 ? 0.995 : 0.1 + (i % 50) / 100, right: false, openSet: true }));
    const enrolled = Array.from({ length: 400 }, (_, i) => ({ p: i < 30 ? 0.99 : 0.3, right: i < 30, openSet: false }));
    const sample = [...strangers, ...enrolled];
    expect(chooseThreshold(sample).threshold).toBeNull();
    // Above it nothing in the sample is a match, and 400 queries of each kind with none false keep
    // the bound (one would not, in 400): another set's threshold at least that high is safe for this one too.
    const safe = safeThreshold(sample)!;
    expect(safe.threshold).toBeGreaterThan(0.995);
    expect(safe.threshold).toBeLessThan(0.996);
    expect(safe.falseMatches).toBe(0);
    expect(safe.fmrUpper).toBeLessThanOrEqual(0.01);
    expect(safe.correctMatchRate).toBe(0);
    // Where a cut below can hold, it is chooseThreshold's own.
    const easy = [...strangers.map((s) => ({ ...s, p: Math.min(s.p, 0.6) })), ...enrolled];
    expect(safeThreshold(easy)!.threshold).toBe(0.99);
    expect(chooseThreshold(easy).threshold).toBe(0.99);
    // Too small to show 1% with none seen: nothing is vouched, however the scores fall.
    expect(safeThreshold([...strangers.slice(0, 250), ...enrolled])).toBeNull();
  });

  it('refuses to vouch with too few queries, and says why', () => {
    const fit = fitFusedCalibration(generate(120, 7));
    expect(fit.params).toBeNull();
    expect(fit.reason).toMatch(/120 queries cannot show .* 299 are needed/);
    // The threshold search alone agrees: no cut of 120 queries bounds the rate at 1%.
    expect(chooseThreshold(generate(120, 7).map((s) => ({ p: s.same ? 0.99 : 0.01, right: s.same }))).threshold).toBeNull();
  });
});

describe('photos of one individual that answer alike count as fewer queries', () => {
  /** `copies` near-identical queries per sample, in its group: frames of one video, held out one by one. */
  const frames = (samples: readonly QuerySample[], copies: number, seed: number): QuerySample[] => {
    const rnd = mulberry32(seed);
    return samples.flatMap((s, i) =>
      Array.from({ length: copies }, () => ({
        ...s,
        group: `clip-${i}`,
        evidence: { ...s.evidence, global: s.evidence.global + 0.001 * rnd(), local: s.evidence.local * (1 + 0.01 * rnd()) },
      })),
    );
  };

  it('measures the design effect: identical within groups is one query per group, independent is one per query', () => {
    const same = ['a', 'b', 'c', 'd'].flatMap((g, i) => Array.from({ length: 10 }, () => ({ value: i / 4, group: g })));
    expect(designEffect(same).icc).toBe(1);
    expect(designEffect(same).deff).toBe(10);
    const rnd = mulberry32(3);
    const independent = Array.from({ length: 2000 }, (_, i) => ({ value: rnd(), group: `g${i % 40}` }));
    expect(designEffect(independent).deff).toBeLessThan(1.6);
    expect(designEffect(independent.map((s, i) => ({ ...s, group: `own-${i}` }))).deff).toBe(1);
    // Values that never vary say nothing about independence.
    expect(designEffect(same.map((s) => ({ ...s, value: 0.5 }))).deff).toBe(10);
  });

  it('bounds the false-match rate on the effective count, so a clustered sample vouches for less', () => {
    // 40 clusters of 10 alike queries: 400 photos, about 40 independent queries.
    const clustered = Array.from({ length: 400 }, (_, i) => ({ p: (i % 40) / 40, right: i % 40 >= 20, group: `c${i % 40}` }));
    expect(effectiveSample(clustered).n).toBeLessThanOrEqual(45);
    expect(chooseThreshold(clustered).threshold).toBeNull();
    // The same probabilities with no groups claim 400 independent queries, and a threshold.
    expect(chooseThreshold(clustered.map(({ p, right }) => ({ p, right }))).threshold).not.toBeNull();
  });

  it('refuses an owner fit whose queries are near-duplicates, and says how many independent ones they are worth', () => {
    const fewClips = frames(generate(80, 11), 20, 12);
    expect(fewClips).toHaveLength(1600);
    const fit = fitFusedCalibration(fewClips);
    expect(fit.params).toBeNull();
    expect(fit.effective_n).toBeLessThan(minimumSample(0.01));
    expect(fit.reason).toMatch(
      /^800 queries of .*, worth about \d+ independent ones because photos of one individual answer alike \(design effect [\d.]+\) cannot show .* 299 are needed/,
    );
    // Independent queries of the same size still fit.
    const fresh = fitFusedCalibration(generate(1600, 13));
    expect(fresh.params).not.toBeNull();
    expect(fresh.effective_n).toBeGreaterThan(500);
  });
});
