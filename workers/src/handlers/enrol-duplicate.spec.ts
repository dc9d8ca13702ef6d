import { describe, expect, it } from 'vitest';
import type { CalibrationParams } from '../vision/calibrate.js';
import type { Candidate } from '../vision/engine.js';
import { alreadyShown, COMPARABLE_RUNNER_UP, VERIFIED_INLIERS, VERIFIED_INLIERS_ALONE } from './enrol-duplicate.js';

const cal = { matchThreshold: 0.9, uncertainThreshold: 0.5 } as CalibrationParams;
const cand = (id: string, probability: number, local: number, localMargin: number): Candidate => ({
  individualId: id,
  probability,
  imageIds: [],
  evidence: { global: 0.9, local, globalMargin: 0, localMargin, spread: 0.5 },
});

describe('alreadyShown: when an enrolment warns of an animal already enrolled', () => {
  it('warns on an uncertain top candidate whose keypoints stand out from the runner-up', () => {
    const ranked = [cand('a', 0.7, 260, 1.8), cand('b', 0.4, 40, -1.8)];
    expect(alreadyShown({ verdict: 'uncertain', ranked }, cal)?.individualId).toBe('a');
  });

  it('stays quiet when the keypoints verify every animal about as well (a stranger in the same barn)', () => {
    const ranked = [cand('a', 0.8, 50, 0.1), cand('b', 0.7, 45, -0.1)];
    expect(alreadyShown({ verdict: 'uncertain', ranked }, cal)).toBeNull();
    // A dissimilar runner-up (close-ups of another coat) does not make a barn's shared background count.
    expect(alreadyShown({ verdict: 'uncertain', ranked: [cand('a', 0.8, 90, 4), cand('b', 0.2, 1, -4)] }, cal)).toBeNull();
  });

  it('stays quiet below the uncertain band, and with too few verified inliers', () => {
    expect(alreadyShown({ verdict: 'no_match', ranked: [cand('a', 0.4, 300, 3), cand('b', 0.1, 5, -3)] }, cal)).toBeNull();
    expect(
      alreadyShown({ verdict: 'uncertain', ranked: [cand('a', 0.7, VERIFIED_INLIERS - 1, 3), cand('b', 0.1, 0, -3)] }, cal),
    ).toBeNull();
  });

  it('with one animal enrolled, asks for verification far beyond a shared background', () => {
    expect(alreadyShown({ verdict: 'match', ranked: [cand('a', 0.97, VERIFIED_INLIERS_ALONE - 1, 5)] }, cal)).toBeNull();
    expect(alreadyShown({ verdict: 'match', ranked: [cand('a', 0.97, VERIFIED_INLIERS_ALONE, 5)] }, cal)?.individualId).toBe('a');
    // The herd's own floor is lower: a lead over a comparable runner-up is what it rests on.
    expect(VERIFIED_INLIERS).toBeLessThan(VERIFIED_INLIERS_ALONE);
  });

  it('in a herd, warns at the fitted floor when the lead is over a comparable runner-up, never over a photo unlike the rest', () => {
    const lead = (top: number, other: number) => Math.log1p(top) - Math.log1p(other);
    // Real re-enrolments verify tens of inliers over a runner-up's chance level (the fit's own attempts).
    const ranked = [cand('a', 0.6, VERIFIED_INLIERS, lead(VERIFIED_INLIERS, 12)), cand('b', 0.2, 12, -1)];
    expect(alreadyShown({ verdict: 'uncertain', ranked }, cal)?.individualId).toBe('a');
    const weak = [cand('a', 0.6, VERIFIED_INLIERS - 1, lead(VERIFIED_INLIERS - 1, 12)), cand('b', 0.2, 12, -1)];
    expect(alreadyShown({ verdict: 'uncertain', ranked: weak }, cal)).toBeNull();
    // A runner-up below chance level is no comparison: the one-animal floor decides.
    const lone = [cand('a', 0.8, 100, lead(100, COMPARABLE_RUNNER_UP - 1)), cand('b', 0.2, COMPARABLE_RUNNER_UP - 1, -3)];
    expect(alreadyShown({ verdict: 'uncertain', ranked: lone }, cal)).toBeNull();
  });

  it('a match among three or more animals warns as before', () => {
    const ranked = [cand('a', 0.95, 10, 0.1), cand('b', 0.2, 9, -0.1), cand('c', 0.1, 8, -0.2)];
    expect(alreadyShown({ verdict: 'match', ranked }, cal)?.individualId).toBe('a');
  });
});
