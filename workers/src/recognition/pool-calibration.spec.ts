import { describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION, type CalibrationParams } from '../vision/calibrate.js';
import { fusedProbability, type FusionModel } from '../vision/fusion.js';
import { holdBack, outcomeOf, shadowKeeps, shadowScore } from './pool-calibration.js';
import type { PoolSample } from './pooled-fit.js';

const ev = { global: 0.5, local: 0, globalMargin: 0, localMargin: 0, spread: 0 };
const s = (owner: string, outcome: PoolSample['outcome'], order: number): PoolSample => ({ owner, outcome, order, views: 1, evidence: ev });

describe('the pooled job', () => {
  it("holds back each owner's newest answers of each outcome, so answers labelled in runs still leave some of each", () => {
    // Own animals labelled first (orders 0–9), strangers after (10–19).
    const samples = [
      ...Array.from({ length: 10 }, (_, i) => s('a', 'right', i)),
      ...Array.from({ length: 10 }, (_, i) => s('a', 'stranger', 10 + i)),
      ...Array.from({ length: 3 }, (_, i) => s('b', 'wrong', i)),
    ];
    const { fit, held } = holdBack(samples, 0.2);
    expect(held.map((x) => `${x.owner}:${x.outcome}:${x.order}`).sort()).toEqual([
      'a:right:8',
      'a:right:9',
      'a:stranger:18',
      'a:stranger:19',
    ]);
    // Fewer than five of a kind: all fitted.
    expect(fit.filter((x) => x.owner === 'b')).toHaveLength(3);
    expect(fit.length + held.length).toBe(samples.length);
    expect(holdBack(samples, 0).held).toEqual([]);
  });

  it('holds back by number of photos too, so answers asked several at a time after single ones still leave that size some to fit', () => {
    // An owner asks ten single photos, then ten pairs: a hold-back by age alone would take only pairs.
    const samples = [
      ...Array.from({ length: 10 }, (_, i) => s('a', 'right', i)),
      ...Array.from({ length: 10 }, (_, i) => ({ ...s('a', 'right', 10 + i), views: 2 })),
    ];
    const { fit, held } = holdBack(samples, 0.2);
    expect(held.map((x) => `${x.views}:${x.order}`).sort()).toEqual(['1:8', '1:9', '2:18', '2:19']);
    expect(fit.filter((x) => x.views === 2)).toHaveLength(8);
  });

  it('scores the held-back answers at one photo and at each several-photo size the fit vouches for', () => {
    // A fusion that reads the global score alone: probability = sigmoid(10 · global − 5).
    const params: CalibrationParams = {
      ...DEFAULT_CALIBRATION,
      matchThreshold: 0.9,
      fusion: {
        prior: 0.5,
        calibrators: { global: { method: 'platt', a: 10, b: -5 } },
        weights: { global: 1 },
        intercept: 0,
      } satisfies FusionModel,
      several: [
        { groupSize: 2, matchThreshold: 0.95, queries: 500, falseMatches: 0, fmrUpper: 0.006 },
        { groupSize: 3, matchThreshold: 1.01, queries: 40, falseMatches: 0, fmrUpper: 0.07 },
      ],
    };
    const at = (global: number, outcome: PoolSample['outcome'], views: number): PoolSample => ({
      owner: 'a',
      outcome,
      views,
      evidence: { ...ev, global },
    });
    const p = (g: number) => fusedProbability(params.fusion!, { ...ev, global: g });
    // Between the two thresholds: a match at one photo, not at two.
    const between = [0.72, 0.74, 0.75, 0.76, 0.78].find((g) => p(g) >= 0.9 && p(g) < 0.95)!;
    expect(between).toBeDefined();
    const held = [at(between, 'stranger', 2), at(0.99, 'right', 2), at(0.99, 'right', 1), at(0.1, 'right', 1), at(0.99, 'wrong', 3)];
    const score = shadowScore(params, held);
    expect(score).toMatchObject({ samples: 2, false_matches: 0, correct_match_rate: 0.5 });
    // Size 3 is withheld (1.01): not scored. Size 2: the stranger stays below its own threshold.
    expect(score.several).toEqual([{ photos: 2, samples: 2, false_matches: 0, correct_match_rate: 1 }]);
    expect(shadowKeeps(score)).toBe(true);
    // The same stranger asked alone is a false match: at one photo the shadow stops the promotion.
    const alone = shadowScore(params, [...held, at(between, 'stranger', 1)]);
    expect(alone.false_matches).toBe(1);
    expect(shadowKeeps(alone)).toBe(false);
  });

  it('reads a label against the top answer it labels', () => {
    const evidence = [{ individual_id: 'x', evidence: {} }];
    expect(outcomeOf({ verdict: 'correct', correct_id: null, evidence })).toBe('right');
    expect(outcomeOf({ verdict: 'other', correct_id: 'x', evidence })).toBe('right');
    expect(outcomeOf({ verdict: 'wrong', correct_id: 'y', evidence })).toBe('wrong');
    expect(outcomeOf({ verdict: 'unknown_ok', correct_id: null, evidence })).toBe('stranger');
    expect(outcomeOf({ verdict: 'correct', correct_id: null, evidence: [] })).toBeNull();
  });
});
