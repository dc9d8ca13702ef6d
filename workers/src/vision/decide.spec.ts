import { describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION, probability, type CalibrationParams } from './calibrate.js';

const guardScore = (e: Parameters<typeof probability>[0]) => probability(e, DEFAULT_CALIBRATION);
import { agreedTop, agreement, decide, decideSeveral, guardVerdict } from './decide.js';

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

describe('photos agreeing on one individual (a pairs threshold with combine: agree)', () => {
  const agree = (matchThreshold: number) => ({
    ...cal,
    several: [{ matchThreshold, groupSize: 2, queries: 900, falseMatches: 0, fmrUpper: 0.008, combine: 'agree' as const }],
  });

  it('scores the mean log-odds over the photos, a photo that does not rank the individual at the floor', () => {
    expect(agreement([[c('x', 0.9)], [c('x', 0.9)]], 'x')).toBeCloseTo(0.9, 10);
    // logit 0.9 and logit 0.5 average to half of logit 0.9: odds 3.
    expect(agreement([[c('x', 0.9)], [c('x', 0.5)]], 'x')).toBeCloseTo(0.75, 10);
    expect(agreement([[c('x', 0.99)], [c('y', 0.99)]], 'x')).toBeLessThan(0.5);
    expect(
      agreedTop([
        [c('x', 0.99), c('y', 0.6)],
        [c('y', 0.7), c('x', 0.01)],
      ]),
    ).toEqual({
      individualId: 'y',
      score: expect.closeTo(agreement([[c('y', 0.6)], [c('y', 0.7)]], 'y'), 10) as number,
    });
    expect(agreedTop([])).toBeUndefined();
  });

  it('names the individual both photos point at, and withholds a look-alike only one photo saw', () => {
    // Both photos rank x fairly high: agreed at 0.8, a match under a 0.75 threshold.
    expect(decideSeveral(fused, [[c('x', 0.8)], [c('x', 0.8)]], agree(0.75))).toEqual({ verdict: 'match', shown: [fused[0]] });
    // One photo is sure of x, the other never ranked it: the best-over-photos rule would match (0.95),
    // the agreement does not, and the fused shortlist is shown.
    const lucky = decideSeveral(fused, [[c('x', 0.999)], [c('y', 0.6)]], agree(0.75));
    expect(lucky).toEqual({ verdict: 'uncertain', shown: [fused[0], fused[1]] });
    // The agreed individual need not be the fused ranking's first: it is named from the ranking.
    expect(
      decideSeveral(
        fused,
        [
          [c('x', 0.97), c('y', 0.9)],
          [c('y', 0.9), c('x', 0.01)],
        ],
        agree(0.85),
      ),
    ).toEqual({
      verdict: 'match',
      shown: [fused[1]],
    });
  });

  it("decides more photos by the first two agreeing on the whole ranking's first", () => {
    expect(decideSeveral(fused, [[c('x', 0.8)], [c('x', 0.8)], [c('z', 0.9)]], agree(0.75)).verdict).toBe('match');
    // The first two agree on y, the whole ranking puts x first: no match.
    expect(decideSeveral(fused, [[c('y', 0.9)], [c('y', 0.9)], [c('x', 0.99)]], agree(0.75)).verdict).toBe('uncertain');
  });

  it('a withheld threshold (1.01) falls back to the every-photo rule', () => {
    expect(decideSeveral(fused, [[c('x', 0.92)], [c('x', 0.91)]], agree(1.01)).verdict).toBe('match');
    expect(decideSeveral(fused, [[c('x', 0.99)], [c('x', 0.6)]], agree(1.01)).verdict).toBe('uncertain');
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

  it("holds a several-photo match to the guard's agreement threshold, scored as the guard scores", () => {
    const agreeAt = (matchThreshold: number): CalibrationParams => ({
      ...DEFAULT_CALIBRATION,
      several: [{ matchThreshold, groupSize: 2, queries: 900, falseMatches: 0, fmrUpper: 0.008, combine: 'agree' }],
    });
    const perPhoto = [ranked, ranked];
    const p = agreement([[{ individualId: 'x', probability: guardScore(ev(0.9)) }]], 'x');
    expect(guardVerdict(decided, ranked, cal, agreeAt(p - 1e-6), 2, 5, perPhoto)).toEqual(decided);
    expect(guardVerdict(decided, ranked, cal, agreeAt(p + 1e-6), 2, 5, perPhoto).verdict).toBe('uncertain');
  });

  it('never turns an uncertain or no_match into a match', () => {
    const unsure = decide(ranked, { ...cal, matchThreshold: 0.99 });
    expect(guardVerdict(unsure, ranked, cal, guardAt(0.01), 1)).toEqual(unsure);
  });
});
