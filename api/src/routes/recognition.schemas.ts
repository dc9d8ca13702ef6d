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
export const IdentifyOut = Ok.extend({
  query_id: z.string().uuid().describe('refer to this query when sending a ground-truth label'),
  verdict: z.enum(['match', 'uncertain', 'no_match']),
  match: CandidateOut.nullable().describe('the individual when verdict is match'),
  candidates: z.array(CandidateOut).describe('the match, or the short list to choose from when uncertain; empty for no_match'),
  model: z.object({ name: z.string(), version: z.string() }),
  learned: z.object({ name: z.string(), version: z.string() }).nullable().optional()
    .describe("the owner's learned version that searched the gallery (npm run train: a linear metric, or with --recipe backbone a fine-tuned network); null: the base model alone"),
});

const EnrolledImage = z.object({
  image_id: z.string().uuid(), cid: z.string(), width: z.number().int(), height: z.number().int(),
  quality: z.object({ sharpness: z.number(), brightness: z.number(), keypoints: z.number().int() }),
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
  413: errorResponse('a photo is over 20 MB or the batch over 64 MB (refused while streaming), or too many files in the field `detail` names'),
  415: errorResponse('the body is not multipart/form-data with a boundary'),
  422: errorResponse('no photo, or a zero-byte, wrong-type, undecodable or unusable (too small, blurred, dark) photo, a truncated multipart body, a species not in the catalogue, duplicate photos, too few photos for the kind, or a bad field; `detail` names it'),
  429: errorResponse('too many requests; wait Retry-After seconds'),
};
export const videoErrors = {
  ...uploadErrors,
  413: errorResponse('the video is over 80 MB; refused while streaming'),
  422: errorResponse('no video, a wrong-type or undecodable video, no usable frame, or over the limits probed with ffprobe before decoding: longer than VIDEO_MAX_SECONDS (default 120 s) or more pixels per frame than VIDEO_MAX_PIXELS (default 1920×1080); workers decode at most VIDEO_MAX_FRAMES_DECODED frames. `detail` names the field, `reason` the limit'),
};
