/**
 * The verdict: `match` (the top candidate), `uncertain` (a short candidate
 * list, returned instead of a guess), or `no_match`.
 */
import { probability, severalScopeFor, type CalibrationParams, type Evidence, type SeveralScope } from './calibrate.js';
import { logit, sigmoid } from './fusion.js';

export type Verdict = 'match' | 'uncertain' | 'no_match';

export interface Scored {
  probability: number;
}

/**
 * Decides from candidates ranked best first. Returns the verdict and the
 * candidates worth showing: the top one for `match`, up to `maxShown` above
 * the uncertain threshold for `uncertain`, none for `no_match`.
 */
export function decide<T extends Scored>(ranked: readonly T[], cal: CalibrationParams, maxShown = 5): { verdict: Verdict; shown: T[] } {
  const top = ranked[0];
  if (!top) return { verdict: 'no_match', shown: [] };
  if (top.probability >= cal.matchThreshold) return { verdict: 'match', shown: [top] };
  if (top.probability >= cal.uncertainThreshold) {
    return { verdict: 'uncertain', shown: ranked.filter((c) => c.probability >= cal.uncertainThreshold).slice(0, maxShown) };
  }
  return { verdict: 'no_match', shown: [] };
}

/**
 * The photos' agreement on one individual: the mean log-odds of its probability in each photo's
 * own ranking (a photo that does not rank it counts as the floor), as a probability. Two photos
 * that both point at one animal keep a high score; a look-alike that one photo ranks high and the
 * other does not falls to about the middle, where the best-over-photos fusion would have kept the
 * lucky photo's score.
 */
export function agreement(perPhoto: readonly (readonly (Scored & { individualId: string })[])[], individualId: string): number {
  let sum = 0;
  for (const ranked of perPhoto) sum += logit(ranked.find((c) => c.individualId === individualId)?.probability ?? 0);
  return sigmoid(sum / Math.max(1, perPhoto.length));
}

/** The individual the photos agree on most, and by how much (`agreement`). */
export function agreedTop(
  perPhoto: readonly (readonly (Scored & { individualId: string })[])[],
): { individualId: string; score: number } | undefined {
  let best: { individualId: string; score: number } | undefined;
  for (const id of new Set(perPhoto.flatMap((r) => r.map((c) => c.individualId)))) {
    const score = agreement(perPhoto, id);
    if (!best || score > best.score) best = { individualId: id, score };
  }
  return best;
}

/**
 * `match` to the individual the photos agree on when their agreement reaches the scope's
 * threshold (and it is `top`, where given), else the fused ranking's shortlist without a match.
 */
function decideAgreed<T extends Scored & { individualId: string }>(
  ranked: readonly T[],
  perPhoto: readonly (readonly T[])[],
  scope: SeveralScope,
  cal: CalibrationParams,
  maxShown: number,
  top?: string,
): { verdict: Verdict; shown: T[] } {
  const agreed = agreedTop(perPhoto);
  const named = agreed && agreed.score >= scope.matchThreshold && (top === undefined || agreed.individualId === top);
  const hit = named ? ranked.find((c) => c.individualId === agreed.individualId) : undefined;
  if (hit) return { verdict: 'match', shown: [hit] };
  return decide(ranked, { ...cal, matchThreshold: Number.POSITIVE_INFINITY }, maxShown);
}

/**
 * The verdict of a query of several photos of one subject. Their evidence is fused (each score
 * keeps its best over the photos), which gives a wrong individual several chances too: on real
 * holstein-dev photos, pairs asked that way at the one-photo threshold gave about twice the false
 * matches of one photo (benchmarks/results/several-photos-*.json; benchmarks/results/README.md,
 * "Several photos as one query"). So:
 * - with a threshold vouched for queries of exactly this many photos (`cal.several`, ≤ 1), that
 *   threshold decides;
 * - more photos than any vouched size, with the pairs' threshold vouched and the first two photos
 *   ranked as a pair (`firstPair`): `match` when that pair is a `match` under the pairs' threshold
 *   to the individual all the photos rank first. The pair is fixed by the photos' order, never by
 *   their evidence, so the pairs' bound holds (and the extra photos can only withhold a match);
 * - otherwise (nothing vouched, or withheld at 1.01: too few groups to vouch), the fused ranking
 *   and candidates stand, but `match` needs every photo, asked alone, to say `match` to the same
 *   individual: never more false matches than one photo gives.
 */
export function decideSeveral<T extends Scored & { individualId: string }>(
  ranked: readonly T[],
  perPhoto: readonly (readonly T[])[],
  cal: CalibrationParams,
  maxShown = 5,
  firstPair?: readonly T[],
): { verdict: Verdict; shown: T[] } {
  if (perPhoto.length < 2) return decide(ranked, cal, maxShown);
  const scope = severalScopeFor(cal, perPhoto.length);
  if (scope && scope.matchThreshold <= 1) {
    if (scope.combine === 'agree') return decideAgreed(ranked, perPhoto, scope, cal, maxShown);
    return decide(ranked, { ...cal, matchThreshold: scope.matchThreshold }, maxShown);
  }
  const pairs = severalScopeFor(cal, 2);
  if (!scope && perPhoto.length > 2 && pairs?.combine === 'agree' && pairs.matchThreshold <= 1) {
    // The first two photos' agreement, as the pairs' threshold was fitted, naming the individual
    // all the photos rank first: the extra photos can only withhold a match.
    return decideAgreed(ranked, perPhoto.slice(0, 2), pairs, cal, maxShown, ranked[0]?.individualId);
  }
  if (!scope && perPhoto.length > 2 && firstPair && pairs && pairs.matchThreshold <= 1) {
    const pair = decide(firstPair, { ...cal, matchThreshold: pairs.matchThreshold }, maxShown);
    const top = ranked[0];
    if (pair.verdict === 'match' && top && pair.shown[0]!.individualId === top.individualId) return { verdict: 'match', shown: [top] };
    return decide(ranked, { ...cal, matchThreshold: Number.POSITIVE_INFINITY }, maxShown);
  }
  const fused = decide(ranked, cal, maxShown);
  if (fused.verdict !== 'match') return fused;
  const id = fused.shown[0]!.individualId;
  const agreed = perPhoto.every((r) => {
    const own = decide(r, cal, maxShown);
    return own.verdict === 'match' && own.shown[0]!.individualId === id;
  });
  return agreed ? fused : { verdict: 'uncertain', shown: ranked.filter((c) => c.probability >= cal.uncertainThreshold).slice(0, maxShown) };
}

/**
 * An owner's own calibration may tighten the serving order, never loosen it
 * (recognition/owner-calibration.ts calibrationFor): a `match` that `guard` (the calibration that
 * would decide without the owner's) would not make is `uncertain`, with the shortlist shown.
 */
export function guardVerdict<T extends Scored & { evidence: Evidence; individualId: string }>(
  d: { verdict: Verdict; shown: T[] },
  ranked: readonly T[],
  cal: CalibrationParams,
  guard: CalibrationParams,
  photos: number,
  maxShown = 5,
  perPhoto: readonly (readonly T[])[] = [],
): { verdict: Verdict; shown: T[] } {
  const top = d.shown[0];
  if (d.verdict !== 'match' || !top) return d;
  const scope = photos > 1 ? (severalScopeFor(guard, photos) ?? severalScopeFor(guard, 2)) : undefined;
  if (scope?.combine === 'agree' && perPhoto.length > 1) {
    // The guard's pairs' threshold holds the first two photos' agreement, scored as the guard scores.
    const rescored = perPhoto
      .slice(0, 2)
      .map((r) => r.map((c) => ({ individualId: c.individualId, probability: probability(c.evidence, guard) })));
    if (agreement(rescored, top.individualId) >= scope.matchThreshold) return d;
    return { verdict: 'uncertain', shown: ranked.filter((c) => c.probability >= cal.uncertainThreshold).slice(0, maxShown) };
  }
  const need = photos > 1 ? (severalScopeFor(guard, photos)?.matchThreshold ?? guard.matchThreshold) : guard.matchThreshold;
  if (probability(top.evidence, guard) >= need) return d;
  return { verdict: 'uncertain', shown: ranked.filter((c) => c.probability >= cal.uncertainThreshold).slice(0, maxShown) };
}
