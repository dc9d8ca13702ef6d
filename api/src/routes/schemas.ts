import { z } from 'zod';

/** Shapes shared by many routes. */
export const Ok = z.object({ ok: z.literal(true) });
export const ErrorBody = z.object({
  ok: z.literal(false),
  error: z.string().describe('a complete sentence, Vietnamese by default, English with Accept-Language: en'),
  detail: z.string().describe('the field that failed, or the same text'),
  code: z.string().describe('stable machine-readable code'),
  request_id: z.string().optional().describe('the X-Request-Id of this request, to quote when asking for help'),
  reason: z.string().optional().describe('machine-readable reason of a validation failure'),
  reasons: z.array(z.string()).optional().describe('machine-readable reason codes, e.g. too_blurred'),
  refused: z
    .array(z.object({ index: z.number().int(), filename: z.string(), reasons: z.array(z.string()), warning: z.boolean() }))
    .optional()
    .describe(
      'enrolment (code photos_refused): every refused photo at once, by 0-based index and file name, with its reasons; warning: keepable with accept_warnings=true',
    ),
  existing: z
    .object({
      animal_did: z.string(),
      individual_id: z.string(),
      name: z.string().nullable(),
      probability: z.number(),
      evidence: z
        .enum(['same_photo', 'match', 'looks_alike'])
        .optional()
        .describe(
          'same_photo: a photo is byte for byte one of its photos; match: identify says match; looks_alike: ranked first in the uncertain band or above with its keypoints verified',
        ),
      photo_url: z.string().nullable().optional().describe("its first photo (GET with the owner's token or session)"),
      photos: z
        .array(z.object({ cid: z.string(), url: z.string() }))
        .optional()
        .describe('up to 4 of its photos, to compare'),
    })
    .optional()
    .describe(
      'animal enrolment (code already_enrolled): the animal of yours these photos already show; add them to it (POST /api/animal/{animal_did}/photos), or resend with accept_warnings=true',
    ),
  overridable: z
    .boolean()
    .optional()
    .describe('with refused: every refusal is a warning, so resending with accept_warnings=true keeps them all'),
});
export const errorResponse = (description: string) => ({ description, schema: ErrorBody });
/** A paged list's answer: extend with the items' field. */
export const Paged = Ok.extend({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
/** The paging fields of a list's query. */
export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
};
