/**
 * Subject isolation: find the animal with the detector and crop it (with a
 * margin) before describing, so scene background contributes less to both
 * the global embedding and the local features. The box used is reported
 * with the descriptor.
 */
import { ANIMAL_CLASS_IDS, cropToBox, loadDetector, pickSubject, type Box, type Detector } from './detector.js';
import type { DecodedImage } from './intake.js';
import type { KindSettings } from './settings.js';

/** Which subject to describe when a photo holds several. */
export interface SubjectRequest {
  /** A box chosen by the caller (pixels of the decoded, upright image); skips detection. */
  box?: Box;
  /** Index into the detections, best score first (as `POST /api/animal/detect` lists them). */
  index?: number;
  /** Refuse the photo when no animal is found (enrolment). Default false: describe the whole photo. */
  require?: boolean;
  /** Run the detector and report its box even where the kind describes the whole photo (enrolment shows it). */
  report?: boolean;
}

/** The subject that was described: its box before the margin, score and COCO label (null score for a caller's box). */
export interface SubjectReport {
  box: Box;
  score: number | null;
  label: string | null;
  cocoClass: number | null;
}

/** No animal was found in a photo that must show one. Never retry. */
export class NoSubjectError extends Error {
  readonly code = 'no_animal_found';
  readonly unrecoverable = true;
  constructor() {
    super('no animal found in the photo');
    this.name = 'NoSubjectError';
  }
}

/**
 * The image to describe and the subject in it. With `subject: 'off'` the
 * photo is used whole (report null) and the detector is never loaded.
 * @throws NoSubjectError when `req.require` and nothing is found.
 */
export async function isolateSubject(
  img: DecodedImage,
  s: KindSettings,
  req: SubjectRequest = {},
  detector: () => Promise<Detector> = loadDetector,
): Promise<{ image: DecodedImage; subject: SubjectReport | null }> {
  if (s.subject === 'off' && !req.require && !req.box && !req.report) return { image: img, subject: null };
  let subject: SubjectReport | null = null;
  if (req.box) {
    subject = { box: req.box, score: null, label: null, cocoClass: null };
  } else {
    const dets = await (await detector()).detect(img, { classes: ANIMAL_CLASS_IDS, minScore: s.subjectMinScore });
    const pick = req.index !== undefined ? dets[req.index] : pickSubject(dets, { prefer: 'largest' });
    if (pick) subject = { box: pick.box, score: pick.score, label: pick.label, cocoClass: pick.cocoClass };
  }
  if (!subject) {
    if (req.require) throw new NoSubjectError();
    return { image: img, subject: null };
  }
  if (s.subject === 'off') return { image: img, subject };
  const crop = await cropToBox(img, subject.box, { margin: s.subjectMargin });
  return { image: crop.image, subject };
}
