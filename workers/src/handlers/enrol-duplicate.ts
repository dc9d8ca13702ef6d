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
 * Guarded inliers below which keypoint verification has not vouched for the top candidate. A
 * stranger photographed in the same barn verifies against the owner's animals through the shared
 * background alone, and more so in a small herd, where nothing shares that background out
 * (engine.ts guardBackground); set above what strangers reach on the generated barn scenes the
 * tests enrol (test/e2e/enrol-duplicate.spec.ts, test/e2e/field-review.spec.ts) and below the
 * animal's own other photos there. Not yet measured on real photos (test/real).
 */
export const VERIFIED_INLIERS = 150;
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
  // With one animal enrolled there is no runner-up to stand out from: the floor alone decides.
  const verified = e.local >= VERIFIED_INLIERS && (out.ranked.length < 2 || e.localMargin >= CLEAR_LEAD);
  return verified ? top : null;
}
