import { describe, expect, it } from 'vitest';
import { fusedProbability } from '../vision/fusion.js';
import { capPerOwner, fitPooledCalibration } from './pooled-fit.js';
import { generatedFleet as fleet, generatedOwner as owner } from './testing/pool-owners.js';

describe('calibration pooled across owners', () => {
  // The twelve honest owners' fit is deterministic and the slowest step here: fitted once, read by
  // every test that needs it (none mutates it).
  let honestFit: ReturnType<typeof fitPooledCalibration> | undefined;
  const fitOfHonestFleet = () => (honestFit ??= fitPooledCalibration(fleet(12)));

  it('vouches from several owners, and its bound holds on owners it never read', () => {
    const fit = fitOfHonestFleet();
    expect(fit.reason).toBeNull();
    expect(fit.params).not.toBeNull();
    expect(fit.owners).toBe(12);
    // One owner's answers count as correlated: fewer independent answers than samples.
    expect(fit.effective_n).toBeLessThanOrEqual(fit.samples);
    const t = fit.params!.matchThreshold;
    expect(t).toBeLessThan(1);
    // Twenty owners it never saw: their false matches at its threshold stay within the target.
    const unseen = fleet(20, 50);
    const model = fit.params!.fusion!;
    const above = unseen.filter((s) => fusedProbability(model, s.evidence) >= t);
    const strangers = unseen.filter((s) => s.outcome === 'stranger');
    const enrolled = unseen.filter((s) => s.outcome !== 'stranger');
    const falseStrangers = above.filter((s) => s.outcome === 'stranger').length / strangers.length;
    const falseEnrolled = above.filter((s) => s.outcome === 'wrong').length / enrolled.length;
    expect(falseStrangers).toBeLessThanOrEqual(0.01);
    expect(falseEnrolled).toBeLessThanOrEqual(0.01);
    // And it decides: most right answers of those owners are a `match`.
    const rights = unseen.filter((s) => s.outcome === 'right');
    expect(above.filter((s) => s.outcome === 'right').length / rights.length).toBeGreaterThan(0.5);
  });

  it('needs several independent owners: one big owner alone vouches for nothing', () => {
    const fit = fitPooledCalibration([...owner('a', 1, 2000), ...owner('b', 2, 2000)]);
    expect(fit.params).toBeNull();
    expect(fit.reason).toMatch(/2 owners; 3 independent owners are needed/);
  });

  it("caps one owner's weight to its newest samples", () => {
    const big = owner('big', 7, 1000);
    const capped = capPerOwner([...big, ...owner('small', 8, 50)], 300);
    expect(capped.filter((s) => s.owner === 'big')).toHaveLength(300);
    expect(capped.filter((s) => s.owner === 'big').every((s) => (s.order ?? 0) >= 700)).toBe(true);
    expect(capped.filter((s) => s.owner === 'small')).toHaveLength(50);
    const fit = fitPooledCalibration([...big, ...fleet(5)], { maxPerOwner: 300 });
    expect(fit.capped).toBe(700);
  });

  it("a poisoned pool: one owner's false confirmations are set aside and the threshold does not move", () => {
    const honest = fleet(12);
    const clean = fitOfHonestFleet();
    expect(clean.params).not.toBeNull();
    // The liar confirms as right every answer the evidence calls a stranger or a wrong animal.
    const liar = owner('liar', 999, 300).map((s) => ({ ...s, outcome: 'right' as const }));
    const poisoned = fitPooledCalibration([...honest, ...liar]);
    expect(poisoned.set_aside.map((s) => s.owner)).toEqual(['liar']);
    expect(poisoned.set_aside[0]!.right).toBeGreaterThan(poisoned.set_aside[0]!.expected);
    expect(poisoned.params!.matchThreshold).toBe(clean.params!.matchThreshold);
    expect(poisoned.params!.fusion).toEqual(clean.params!.fusion);
  });

  it('the reverse lie (every right answer called a stranger) is set aside too', () => {
    const honest = fleet(12);
    const denier = owner('denier', 555, 300).map((s) => ({ ...s, outcome: s.outcome === 'right' ? ('stranger' as const) : s.outcome }));
    const fit = fitPooledCalibration([...honest, ...denier]);
    expect(fit.set_aside.map((s) => s.owner)).toEqual(['denier']);
    expect(fit.set_aside[0]!.z).toBeLessThan(0);
  });

  it('no single owner can loosen the threshold: it keeps its bound with any one owner removed', () => {
    const fit = fitOfHonestFleet();
    expect(fit.threshold).not.toBeNull();
    expect(fit.threshold!).toBeGreaterThanOrEqual(fit.threshold_all!);
  });

  it('each number of photos gets a threshold of its own, fitted on queries of that many photos', () => {
    const samples = [
      ...fleet(12),
      ...Array.from({ length: 12 }, (_, i) => owner(`owner-${i}`, 300 + i, 240, 2)).flat(),
      ...Array.from({ length: 2 }, (_, i) => owner(`owner-${i}`, 400 + i, 240, 3)).flat(),
    ];
    const fit = fitPooledCalibration(samples);
    const pairs = fit.several.find((s) => s.photos === 2)!;
    expect(pairs.threshold).not.toBeNull();
    expect(pairs.samples).toBe(12 * 240);
    const scope = (Array.isArray(fit.params!.several) ? fit.params!.several : []).find((s) => s.groupSize === 2)!;
    expect(scope.matchThreshold).toBeCloseTo(pairs.threshold!, 3);
    // Three-photo queries from two owners only: no threshold, said why.
    const threes = fit.several.find((s) => s.photos === 3)!;
    expect(threes.threshold).toBeNull();
    expect(threes.reason).toMatch(/2 owners/);
  });

  it('refuses without enough answers about strangers, and says so', () => {
    const noStrangers = fleet(6).filter((s) => s.outcome !== 'stranger');
    const fit = fitPooledCalibration(noStrangers);
    expect(fit.params).toBeNull();
    expect(fit.reason).toMatch(/never enrolled/);
  });
});
