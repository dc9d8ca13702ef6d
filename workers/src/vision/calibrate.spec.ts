import { describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION, fitCalibration, probability, rocAuc, type LabelledSample } from './calibrate.js';
import { decide } from './decide.js';
import { mulberry32 } from './testing/synthetic.js';

/** Samples where only the global similarity separates (the default prior leans on inliers). */
function samples(n: number): LabelledSample[] {
  const rnd = mulberry32(5);
  return Array.from({ length: n }, (_, i) => {
    const same = i % 2 === 0;
    return {
      same,
      evidence: {
        global: same ? 0.8 + 0.1 * rnd() : 0.6 + 0.15 * rnd(),
        local: 10 * rnd(),
        globalMargin: 0.05 * (rnd() - 0.5),
        localMargin: rnd() - 0.5,
        spread: rnd() * 0.3,
      },
    };
  });
}

describe('calibration', () => {
  it('computes ROC AUC with ties counted half', () => {
    expect(rocAuc([0.9, 0.8, 0.1, 0.2], [true, true, false, false])).toBe(1);
    expect(rocAuc([0.5, 0.5], [true, false])).toBe(0.5);
  });

  it('re-fits from labelled samples, reports improved separation and keeps false matches within 1%', () => {
    const data = samples(400);
    const report = fitCalibration(data, { previous: DEFAULT_CALIBRATION });
    expect(report.aucAfter).toBeGreaterThan(report.aucBefore);
    expect(report.aucAfter).toBeGreaterThan(0.95);
    expect(report.falseMatchRate).toBeLessThanOrEqual(0.01);
    expect(report.acceptRate).toBeGreaterThan(0.5);
    const strong = probability(data[0]!.evidence, report.params);
    expect(strong).toBeGreaterThan(probability(data[1]!.evidence, report.params));
  });

  it('keeps the prior and disables match when the labels hold too few correct answers', () => {
    const data = samples(400).map((s, i) => ({ ...s, same: s.same && i < 8 }));
    const report = fitCalibration(data, { previous: DEFAULT_CALIBRATION });
    expect(report.params.coef).toEqual(DEFAULT_CALIBRATION.coef);
    expect(report.params.matchThreshold).toBe(1);
    expect(decide([{ probability: 0.999 }], report.params).verdict).toBe('uncertain');
  });

  it('turns probabilities into match, uncertain or no_match', () => {
    const cal = { ...DEFAULT_CALIBRATION, matchThreshold: 0.9, uncertainThreshold: 0.3 };
    expect(decide([{ probability: 0.95 }, { probability: 0.2 }], cal).verdict).toBe('match');
    const unsure = decide([{ probability: 0.6 }, { probability: 0.4 }, { probability: 0.1 }], cal);
    expect(unsure.verdict).toBe('uncertain');
    expect(unsure.shown).toHaveLength(2);
    expect(decide([{ probability: 0.1 }], cal).verdict).toBe('no_match');
    expect(decide([], cal).verdict).toBe('no_match');
  });
});
