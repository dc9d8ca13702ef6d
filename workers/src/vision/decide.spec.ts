import { describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION, type CalibrationParams } from './calibrate.js';
import { decide, decideSeveral, guardVerdict } from './decide.js';

const cal: CalibrationParams = { ...DEFAULT_CALIBRATION, matchThreshold: 0.9, uncertainThreshold: 0.3 };
const c = (individualId: string, probability: number) => ({ individualId, probability });
const fused = [c('x', 0.95), c('y', 0.5), c('z', 0.1)];

describe('decideSeveral', () => {
  it('decides one photo as decide does', () => {
    expect(decideSeveral(fused, [fused], cal)).toEqual(decide(fused, cal));
  });

  it('uses the threshold vouched for several photos when the calibration has one', () => {
    expect(
      decideSeveral(fused, [[c('x', 0.5)], [c('x', 0.5)]], {
        ...cal,
        several: { matchThreshold: 0.93, groupSize: 2, queries: 700, falseMatches: 1, fmrUpper: 0.009 },
      }).verdict,
    ).toBe('match');
    const strict = decideSeveral(fused, [[c('x', 0.99)], [c('x', 0.99)]], {
      ...cal,
      several: { matchThreshold: 0.97, groupSize: 2, queries: 700, falseMatches: 1, fmrUpper: 0.009 },
    });
    expect(strict.verdict).toBe('uncertain');
    expect(strict.shown.map((x) => x.individualId)).toEqual(['x', 'y']);
  });

  it("uses only the threshold fitted for the query's number of photos", () => {
    const scope = (groupSize: number, matchThreshold: number) => ({
      matchThreshold,
      groupSize,
      queries: 600,
      falseMatches: 0,
      fmrUpper: 0.005,
    });
    const bySize = { ...cal, several: [scope(2, 0.8), scope(3, 0.97), scope(4, 0.93)] };
    const photos = (k: number, p: number) => Array.from({ length: k }, () => [c('x', p)]);
    // Pairs: 0.95 clears the pairs' 0.8; triples: not the triples' 0.97; four photos: the fours' 0.93.
    expect(decideSeveral(fused, photos(2, 0.5), bySize).verdict).toBe('match');
    expect(decideSeveral(fused, photos(3, 0.5), bySize).verdict).toBe('uncertain');
    expect(decideSeveral(fused, photos(4, 0.5), bySize).verdict).toBe('match');
    // Five photos: no threshold vouched for five, so every photo alone must be a match.
    expect(decideSeveral(fused, photos(5, 0.5), bySize).verdict).toBe('uncertain');
    expect(decideSeveral(fused, photos(5, 0.92), bySize).verdict).toBe('match');
    // A fit from before sizes 3 and 4 (one object, pairs) decides pairs only.
    const pairsOnly = { ...cal, several: scope(2, 0.8) };
    expect(decideSeveral(fused, photos(2, 0.5), pairsOnly).verdict).toBe('match');
    expect(decideSeveral(fused, photos(3, 0.5), pairsOnly).verdict).toBe('uncertain');
  });

  it('decides more photos than any vouched size by their first two, asked as a pair, agreeing with the whole ranking', () => {
    const scope = (groupSize: number, matchThreshold: number) => ({
      matchThreshold,
      groupSize,
      queries: 600,
      falseMatches: 0,
      fmrUpper: 0.005,
    });
    const pairsCal = { ...cal, several: [scope(2, 0.8)] };
    const three = [[c('x', 0.5)], [c('x', 0.5)], [c('x', 0.5)]];
    // The first pair clears the pairs' threshold for the whole ranking's top: a match.
    expect(decideSeveral(fused, three, pairsCal, 5, [c('x', 0.85), c('y', 0.1)])).toEqual({ verdict: 'match', shown: [fused[0]] });
    // The first pair names another individual than the whole ranking: uncertain, with the shortlist.
    expect(decideSeveral(fused, three, pairsCal, 5, [c('y', 0.9), c('x', 0.2)])).toEqual({
      verdict: 'uncertain',
      shown: [fused[0], fused[1]],
    });
    // The pair below its threshold: uncertain, even with every photo alone a match (the rules are not added up).
    expect(decideSeveral(fused, [[c('x', 0.95)], [c('x', 0.95)], [c('x', 0.95)]], pairsCal, 5, [c('x', 0.7)]).verdict).toBe('uncertain');
    // Pairs withheld (1.01): the every-photo rule decides.
    const withheld = { ...cal, several: [scope(2, 1.01)] };
    expect(decideSeveral(fused, [[c('x', 0.95)], [c('x', 0.95)], [c('x', 0.95)]], withheld, 5, [c('x', 0.7)]).verdict).toBe('match');
    expect(decideSeveral(fused, three, withheld, 5, [c('x', 0.99)]).verdict).toBe('uncertain');
  });

  it('without one, needs every photo alone to say match to the fused top', () => {
    expect(decideSeveral(fused, [[c('x', 0.92), c('y', 0.2)], [c('x', 0.91)]], cal)).toEqual({ verdict: 'match', shown: [fused[0]] });
    const oneShort = decideSeveral(fused, [[c('x', 0.92)], [c('x', 0.6), c('y', 0.4)]], cal);
    expect(oneShort).toEqual({ verdict: 'uncertain', shown: [fused[0], fused[1]] });
    // Each photo matching, but not the same individual: uncertain.
    expect(decideSeveral(fused, [[c('x', 0.92)], [c('y', 0.93)]], cal).verdict).toBe('uncertain');
    // A withheld several-photo threshold (1.01) falls back to the same rule.
    const withheld = { ...cal, several: { matchThreshold: 1.01, groupSize: 2, queries: 120, falseMatches: 0, fmrUpper: 0.025 } };
    expect(decideSeveral(fused, [[c('x', 0.92)], [c('x', 0.91)]], withheld).verdict).toBe('match');
    expect(decideSeveral(fused, [[c('x', 0.92)], [c('x', 0.6)]], withheld).verdict).toBe('uncertain');
    // The fused answer is not a match: nothing to confirm.
    const low = [c('x', 0.6), c('y', 0.2)];
    expect(decideSeveral(low, [[c('x', 0.95)], [c('x', 0.95)]], cal)).toEqual(decide(low, cal));
  });
});

describe("guardVerdict: an owner's calibration may tighten the serving order, never loosen it", () => {
  const ev = (global: number) => ({ global, local: 40, globalMargin: 0.1, localMargin: 1, spread: 0.5 });
  const ranked = [
    { individualId: 'x', probability: 0.95, evidence: ev(0.9) },
    { individualId: 'y', probability: 0.4, evidence: ev(0.5) },
  ];
  const decided = decide(ranked, cal);
  const guardAt = (matchThreshold: number): CalibrationParams => ({ ...DEFAULT_CALIBRATION, matchThreshold });

  it('keeps a match the guard also makes', () => {
    expect(decided.verdict).toBe('match');
    expect(guardVerdict(decided, ranked, cal, guardAt(0.01), 1)).toEqual(decided);
  });

  it("withholds a match the guard would not make: uncertain, with the owner's shortlist", () => {
    const g = guardVerdict(decided, ranked, cal, guardAt(1.01), 1);
    expect(g.verdict).toBe('uncertain');
    expect(g.shown.map((x) => x.individualId)).toEqual(['x', 'y']);
  });

  it("uses the guard's threshold for the query's number of photos", () => {
    const guard = { ...guardAt(0.01), several: [{ matchThreshold: 1.01, groupSize: 2, queries: 700, falseMatches: 0, fmrUpper: 0.004 }] };
    expect(guardVerdict(decided, ranked, cal, guard, 1).verdict).toBe('match');
    expect(guardVerdict(decided, ranked, cal, guard, 2).verdict).toBe('uncertain');
  });

  it('never turns an uncertain or no_match into a match', () => {
    const unsure = decide(ranked, { ...cal, matchThreshold: 0.99 });
    expect(guardVerdict(unsure, ranked, cal, guardAt(0.01), 1)).toEqual(unsure);
  });
});
