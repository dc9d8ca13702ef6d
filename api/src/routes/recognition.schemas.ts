import { z } from 'zod';
import { Ok, errorResponse } from './schemas.js';

/** Response shapes shared by every enrol and identify route (trees, fruit, animals). */
const Photo = z.object({ image_id: z.string().uuid(), cid: z.string().describe('CIDv1 of the enrolled photo') });
export const CandidateOut = z.object({
  individual_id: z.string().uuid(),
  name: z.string().nullable(),
  species: z.string().nullable(),
  farm_id: z.string().nullable(),
  probability: z.number().min(0).max(1).describe('calibrated probability that the query shows this individual'),
  photos: z.array(Photo).describe('enrolled photos that supported the candidate, best first'),
});
/** One of the closest individuals shown for review, whatever the verdict (workers/src/handlers/review.ts). */
export const ReviewCandidate = z.object({
  rank: z.number().int().min(1),
  individual_id: z.string().uuid(),
  animal_did: z.string().optional().describe('animals only'),
  name: z.string().nullable(),
  species: z.string().nullable(),
  farm_id: z.string().nullable(),
  probability: z.number().min(0).max(1),
  photos: z
    .array(Photo.extend({ url: z.string().describe('GET this (with your token) to show the photo') }))
    .describe('up to 4 of its photos, those that supported it first'),
  match_lines: z
    .object({
      image_id: z.string().uuid().describe('the enrolled photo the lines go to (photos[0])'),
      cid: z.string(),
      query_index: z.number().int().describe('which query photo the lines come from'),
      query: z
        .array(z.tuple([z.number(), z.number()]))
        .describe('inlier keypoints in the query photo, [x, y] as shares (0–1) of its upright width and height'),
      candidate: z
        .array(z.tuple([z.number(), z.number()]))
        .describe('the matching keypoints in the enrolled photo, index-aligned with `query`'),
      inliers: z.number().int().describe('geometrically verified matches found (the lists keep at most 60)'),
    })
    .nullable()
    .describe('why it was ranked here: matched keypoints verified by a homography; null when none could be computed'),
});
export const IdentifyOut = Ok.extend({
  query_id: z.string().uuid().describe('refer to this query when sending a ground-truth label'),
  verdict: z.enum(['match', 'uncertain', 'no_match']),
  match: CandidateOut.nullable().describe('the individual when verdict is match'),
  candidates: z.array(CandidateOut).describe('the match, or the short list to choose from when uncertain; empty for no_match'),
  closest: z
    .array(ReviewCandidate)
    .optional()
    .describe(
      "the 3–5 closest individuals for review on every verdict, no_match included, each with several photos and the matched keypoints; `candidates` stays the verdict's own list",
    ),
  model: z.object({ name: z.string(), version: z.string() }),
  learned: z
    .object({ name: z.string(), version: z.string() })
    .nullable()
    .optional()
    .describe(
      "the owner's learned version that searched the gallery (npm run train: a linear metric, or with --recipe backbone a fine-tuned network); null: the base model alone",
    ),
  calibration: z
    .object({
      source: z
        .enum(['owner', 'pooled', 'kind_default'])
        .describe(
          "which calibration decided, in serving order. `owner`: the probability and the match threshold come from your own photos (held-out photos and hidden individuals of your gallery, plus your identify_verdict labels) for this very model; a `match` must also pass the calibration that would serve without it, so your own can tighten but never loosen it. `pooled`: your own photos cannot vouch yet, and the calibration fitted on the scores of every contributing owner's confirmed answers of this kind (no photo, embedding, name or id of theirs) decides; `kind_default`: neither vouches, so the kind's shipped calibration (or its hand-set defaults) applies",
        ),
      reason: z
        .string()
        .nullable()
        .describe('why your own calibration does not decide, and what does instead; null with your own calibration'),
      samples: z.number().int().nullable().describe('queries your calibration was fitted on'),
      effective_samples: z
        .number()
        .int()
        .nullable()
        .optional()
        .describe(
          "how many independent queries the scarcer kind (never-enrolled or enrolled) is worth: photos of one individual that answer alike (frames of one video, a burst) count as fewer (Kish's design effect); each kind's false-match bound, and whether your own calibration can serve at all, are judged on its own count, 299 at least",
        ),
      false_match_bound: z
        .number()
        .nullable()
        .describe(
          "95% upper confidence bound (Clopper–Pearson, on the effective count) of the false-match rate at the match threshold, the larger of two: among queries of individuals never enrolled, and among queries of enrolled ones; at most 0.01; with the kind's defaults, the bound of the kind's shipped calibration, vouched on individuals of other herds (models/calibration), or null for the hand-set defaults",
        ),
      match_threshold: z
        .number()
        .describe(
          'probability at or above which the top candidate is a match; above 1 (1.01) when matches are withheld: a model fine-tuned on your photos that is not yet calibrated on photos it never trained on',
        ),
      fitted_at: z.string().nullable(),
      several: z
        .array(
          z.object({
            photos: z
              .number()
              .int()
              .describe(
                'number of photos in the query this threshold decides (today 2: larger groups of gallery photos did not vouch for real queries)',
              ),
            match_threshold: z
              .number()
              .describe(
                'probability at or above which the top candidate of a query of that many photos is a match (1.01: too few groups to vouch for one, so a match needs every photo alone to be one)',
              ),
            samples: z
              .number()
              .int()
              .describe(
                'queries the threshold was chosen on: groups of that many of your held-out photos, asked with the group hidden and with its individual hidden',
              ),
            false_match_bound: z
              .number()
              .nullable()
              .describe('95% upper confidence bound of the false-match rate of such queries at that threshold'),
            held_to: z
              .enum(['best_photo', 'agreement'])
              .optional()
              .describe(
                "what the threshold is compared with: `best_photo`, the candidate's evidence with each score at its best over the photos; `agreement`, how far the photos agree on one individual (the mean log-odds of its probability in each photo alone), which a look-alike seen in one photo only does not reach",
              ),
          }),
        )
        .nullable()
        .optional()
        .describe(
          "the thresholds for queries of several photos (several `files`, a survey track's crops), one per number of photos; a query of more photos than any entry is a match when its first two photos, asked as a pair, are one to the individual all its photos rank first; null (no pair vouched): a several-photo query is a match only when every photo alone is one",
        ),
    })
    .optional()
    .describe('the calibration behind `probability` and the verdict'),
});

const EnrolledImage = z.object({
  image_id: z.string().uuid(),
  cid: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  quality: z.object({ sharpness: z.number(), brightness: z.number(), keypoints: z.number().int() }),
  subject: z
    .object({
      box: z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }),
      score: z.number().nullable(),
      label: z.string().nullable(),
    })
    .passthrough()
    .nullable()
    .optional()
    .describe('the animal the detector found (pixels of the upright photo); null: none found, the whole photo was used'),
  filename: z.string().optional().describe('the uploaded file name'),
  warnings: z
    .array(z.string())
    .optional()
    .describe('warnings the owner accepted with accept_warnings (too_dark, too_blurred, near_identical)'),
});
/** One photo refused by an enrolment; every refused photo is listed in one answer. */
export const PhotoRefusalOut = z.object({
  index: z.number().int().describe('0-based position of the photo in the request'),
  filename: z.string(),
  reasons: z.array(z.string()).describe('identical, near_identical, too_small, too_blurred, too_dark, image_undecodable, no_animal_found'),
  warning: z.boolean().describe('true: the owner may keep it by sending accept_warnings=true'),
});
export const EnrollOut = Ok.extend({
  individual_id: z.string().uuid(),
  tree_id: z.string().uuid().optional(),
  images: z.array(EnrolledImage),
  model: z.object({ name: z.string(), version: z.string() }),
});

export const uploadErrors = {
  401: errorResponse('not signed in'),
  404: errorResponse('no such individual, or not yours'),
  413: errorResponse(
    'a photo is over 20 MB or the batch over 64 MB (refused while streaming), too many files in the field `detail` names, or a photo over IMAGE_MAX_PIXELS pixels (read from its header before decoding)',
  ),
  415: errorResponse('the body is not multipart/form-data with a boundary'),
  422: errorResponse(
    'no photo, or a zero-byte, wrong-type, undecodable or unusable (too small, blurred, dark) photo, a truncated multipart body, a species not in the catalogue, duplicate photos, too few photos for the kind, or a bad field; `detail` names it. ' +
      'An enrolment answers `code: photos_refused` with `refused` (array of {index, filename, reasons, warning}) naming every refused photo at once, and `overridable` (all are warnings)',
  ),
  429: errorResponse('too many requests; wait Retry-After seconds'),
};
export const videoErrors = {
  ...uploadErrors,
  413: errorResponse('the video is over 80 MB; refused while streaming'),
  422: errorResponse(
    'no video, a wrong-type or undecodable video, no usable frame, or over the limits probed with ffprobe before decoding: longer than VIDEO_MAX_SECONDS (default 120 s) or more pixels per frame than VIDEO_MAX_PIXELS (default 1920×1080); workers decode at most VIDEO_MAX_FRAMES_DECODED frames. `detail` names the field, `reason` the limit',
  ),
};
