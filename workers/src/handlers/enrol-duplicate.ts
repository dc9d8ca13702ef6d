import type { CalibrationParams } from '../vision/calibrate.js';
import type { Candidate, IdentifyResult } from '../vision/engine.js';

/**
 * When an enrolment's photos already show one of the owner's animals (issue 39 item 7): three
 * other photos of an enrolled cow made a second animal silently, because the warning waited for
 * a `match`, which several photos of one subject seldom reach (decide.ts: every photo must say
 * `match` alone). A warning costs the owner one tap ("it's a different one"); a silent duplicate
 * splits one animal's history in two. So the warning asks for less than a verdict: the top
 * candidate in the kind calibration's `uncertain` band or above, with its keypoints verified.
 */

/**
 * Guarded inliers below which keypoint verification has not vouched for the top candidate, when
 * the herd has a runner-up to stand out from. Fitted on generated herds of synthetic individuals
 * (benchmarks/duplicate-rule.ts; the result, with every attempt, in
 * benchmarks/results/duplicate-rule-2026-11-28.json): the knee below which unrelated strangers
 * start to warn as fast as the animal's own other photos do. The lead over the runner-up
 * (CLEAR_LEAD) is what keeps a shared barn quiet: the background verifies against every animal.
 */
export const VERIFIED_INLIERS = 40;
/**
 * With one animal enrolled there is no runner-up, and a stranger photographed in the same barn
 * verifies through the shared background alone (engine.ts guardBackground has nothing to share
 * it out with): the floor alone decides, set above what strangers reach on the generated barn
 * scenes the tests enrol (test/e2e/enrol-duplicate.spec.ts, test/e2e/field-review.spec.ts).
 */
export const VERIFIED_INLIERS_ALONE = 150;
/**
 * The lead means something only over a runner-up that was a fair comparison. Any two photos of
 * animals verify a few guarded inliers by chance (set below every runner-up in the fit's result
 * file above); a runner-up below this is a different kind of photo altogether (a coat close-up beside barn
 * shots), so the top's lead may be its background, and the floor for one animal applies.
 */
export const COMPARABLE_RUNNER_UP = 5;
/**
 * The top candidate's verified inliers over the runner-up's (as log1p, the evidence's
 * localMargin): at least twice as many. A stranger's photos verify about as well against every
 * animal of a herd (a shared barn, a similar coat); the animal itself stands out.
 */
export const CLEAR_LEAD = Math.log(2);

/** The candidate the photos already show, or null; `ranked` best first, over the owner's animals only. */
export function alreadyShown(out: Pick<IdentifyResult, 'verdict' | 'ranked'>, cal: CalibrationParams): Candidate | null {
  const top = out.ranked[0];
  if (!top) return null;
  // Probabilities are margins over the other animals: a `match` among a few says enough.
  if (out.verdict === 'match' && out.ranked.length >= 3) return top;
  if (top.probability < cal.uncertainThreshold) return null;
  const e = top.evidence;
  // With no comparable runner-up to stand out from (one animal enrolled, or photos unlike the
  // rest of the herd) a higher floor alone decides.
  const runnerUp = Math.max(0, ...out.ranked.slice(1).map((c) => c.evidence.local));
  const verified =
    runnerUp < COMPARABLE_RUNNER_UP ? e.local >= VERIFIED_INLIERS_ALONE : e.local >= VERIFIED_INLIERS && e.localMargin >= CLEAR_LEAD;
  return verified ? top : null;
}
