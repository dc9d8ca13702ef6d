import { z } from 'zod';
import type { Services } from '../services/index.js';
import { LOOKUP_MAX, type PublicAnswer } from '../services/fruit-public.service.js';
import { renderMessage, type Lang } from '../../../shared/src/domain/messages.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { ErrorBody, Ok, errorResponse } from './schemas.js';

const Photo = z.object({
  image_id: z.string(),
  cid: z.string(),
  url: z.string().describe('`/api/blobs/{cid}`: fetchable without a token while the fruit is public'),
});
const PublicTree = z
  .object({
    tree_id: z.string(),
    code: z.string().nullable().describe("the tree's traceability code"),
    link: z.string().nullable().describe('`/t/{code}`'),
  })
  .nullable()
  .describe('the tree the fruit hangs on, only when that tree is public too; otherwise null');
const Candidate = z.object({
  fruit_id: z.string(),
  probability: z
    .number()
    .describe(
      'the ranking score; not a confidence for fruit (spec section 1 rule 5): read `confidence`, show the photos and let the person choose',
    ),
  confidence: z
    .enum(['match', 'possible', 'unlikely'])
    .describe(
      "how far the verdict vouches for this fruit: `match` only for the first candidate of a `match`; `possible` for one of an `uncertain` verdict's short list; " +
        '`unlikely` for every other (the closest found, never to be shown as the answer)',
    ),
  species: z.string().nullable(),
  name: z.string().nullable(),
  photos: z.array(Photo),
  tree: PublicTree,
});
const Candidates = z
  .array(Candidate)
  .max(LOOKUP_MAX)
  .describe(`best first, at most ${LOOKUP_MAX}, public fruit only; empty when the photo is not a fruit`);
/** The calibrated answer both public photo routes give (documented once, generated into the OpenAPI). */
const Verdict = {
  verdict: z
    .enum(['match', 'uncertain', 'no_match'])
    .describe(
      "the owner routes' calibrated decision (as /api/fruit/identify): `match` names the first candidate; `uncertain` offers a short list to choose from; " +
        '`no_match`: none of the published fruit (or the photo is not a fruit). Publicly a `match` needs a calibration that vouched for it (`match_vouched`); without one the closest are `uncertain` at best',
    ),
  not_fruit: z
    .boolean()
    .describe(
      'true when the detector found an animal in the photo instead of a fruit: the verdict is `no_match` and no candidate is offered',
    ),
  seen: z.string().nullable().describe('what the detector found instead of a fruit (a COCO label such as `cow`); null otherwise'),
  match_vouched: z
    .boolean()
    .describe(
      'whether the calibration deciding public lookups vouched for a `match`; false: matches are withheld and the closest shown as `possible`',
    ),
  message: z.string().describe('the verdict as one sentence in the language of Accept-Language (Vietnamese by default)'),
  candidates: Candidates,
  count: z.number().int(),
};
const Provenance = Ok.extend({
  fruit_id: z.string(),
  species: z.string().nullable(),
  name: z.string().nullable(),
  enrolled_at: z.string(),
  image_count: z.number().int(),
  photos: z.array(Photo),
  tree: PublicTree,
  evidence: z
    .enum(['server_only', 'recorded'])
    .describe('`server_only`: an answer of the service, not independently checkable (spec section 1 rule 8)'),
  record_cid: z.string().optional(),
  record_hash: z.string().optional(),
});
const FruitParam = z.object({ id: z.string().min(1).max(100).describe('fruit id') });
const VisibilityOut = Ok.extend({ fruit_id: z.string(), visibility: z.enum(['private', 'public']) });
const photoErrors = {
  413: errorResponse('the photo is over 20 MB or over IMAGE_MAX_PIXELS pixels'),
  422: errorResponse('no photo, or an empty, wrong-type, undecodable or unusable photo'),
  429: errorResponse(
    'too many public requests from this client, or the service is too busy to answer in time; wait Retry-After seconds and resend the same photo',
  ),
};
const PUBLIC_NOTE =
  'No account. Nothing about the caller is kept: the photo is deleted once ranked and no query is stored. ' +
  'Only fruit whose owners published it (POST /api/fruit/{id}/publish) is searched; a tree is linked only when it is public too.';

/** The verdict in one sentence for a shopper. */
function verdictSentence(a: PublicAnswer, lang: Lang): string {
  if (a.not_fruit) return renderMessage('fruit_lookup_not_fruit', lang);
  if (a.verdict === 'match')
    return renderMessage('fruit_lookup_match', lang, {
      name: a.candidates[0]?.name ?? a.candidates[0]?.species ?? a.candidates[0]?.fruit_id ?? '',
    });
  if (a.verdict === 'uncertain') return renderMessage('fruit_lookup_uncertain', lang);
  return renderMessage(a.candidates.length ? 'fruit_lookup_no_match' : 'fruit_lookup_none_published', lang);
}

/** Public fruit lookup, the point-of-sale scan and its choice, and the owner's publish switch. */
export function fruitPublicRoutes(s: Services): RouteDef[] {
  const fp = s.fruitPublic;
  const guard = (ctx: { ip: string }) => fp.throttle(ctx.ip);
  const owner = {
    tag: 'fruit',
    access: 'user',
    feature: 'fruit-publish',
    params: FruitParam,
    method: 'post',
    responses: {
      200: { description: 'the new visibility', schema: VisibilityOut },
      401: errorResponse('not signed in'),
      403: errorResponse('a grantee, not the owner'),
      404: errorResponse('no such fruit, or not yours'),
    },
  } as const;
  return [
    defineRoute({
      method: 'post',
      path: '/api/fruit/lookup',
      tag: 'public',
      access: 'public',
      feature: 'fruit-lookup',
      guard,
      summary: `Look up a fruit from one photo among public fruit: a calibrated verdict and up to ${LOOKUP_MAX} candidates with photos`,
      description: `multipart/form-data with one photo in \`files\`. ${PUBLIC_NOTE}`,
      bodyType: 'multipart',
      upload: { field: 'files', maxFiles: 1, kind: 'image' },
      responses: {
        200: { description: 'the calibrated verdict and the candidates (may be empty)', schema: Ok.extend(Verdict) },
        ...photoErrors,
      },
      handler: async ({ files, lang }) => {
        const a = await fp.lookup(files[0]);
        return { ok: true, ...a, message: verdictSentence(a, lang), count: a.candidates.length };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/fruit/scan',
      tag: 'public',
      access: 'public',
      feature: 'fruit-scan',
      guard,
      summary: 'Point-of-sale scan: candidates to choose from, and a single-use token for the choice',
      description:
        `multipart/form-data with one photo in \`files\`. State \`none → issued\`: answers the candidates (as /api/fruit/lookup) and \`scan_token\`, ` +
        `usable once, until \`expires_at\` (FRUIT_SCAN_TTL_S, default 600 s), to choose one of them with POST /api/fruit/scan/choose. ${PUBLIC_NOTE}`,
      bodyType: 'multipart',
      upload: { field: 'files', maxFiles: 1, kind: 'image' },
      responses: {
        200: {
          description: 'issued: the calibrated verdict and candidates (as /api/fruit/lookup) and the token',
          schema: Ok.extend({ scan_token: z.string().describe('single use'), expires_at: z.string(), ...Verdict }),
        },
        ...photoErrors,
      },
      handler: async ({ files, lang }) => {
        const out = await fp.scan(files[0]);
        return { ok: true, ...out, message: verdictSentence(out, lang), count: out.candidates.length };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/fruit/scan/choose',
      tag: 'public',
      access: 'public',
      feature: 'fruit-scan',
      guard,
      summary: 'Complete a point-of-sale scan: choose one offered fruit and get its public provenance',
      description:
        'Form (or JSON) `scan_token`, `fruit_id`. Transitions: `issued → chosen` (200, the token is consumed). Every other case leaves the token as it was and answers 400 with its `code`: ' +
        '`fruit_scan_token_invalid` (no such token), `fruit_scan_token_used` (chosen already: reuse), `fruit_scan_token_expired` (past expires_at), ' +
        '`fruit_scan_not_offered` (a fruit this scan did not offer: choose again with the same token). A fruit unpublished since the scan is 404, and the token stays usable.',
      bodyType: 'form',
      body: z.object({ scan_token: z.string().min(1).max(200), fruit_id: z.string().uuid() }),
      responses: {
        200: {
          description: "chosen: the token is consumed; the fruit's public provenance",
          schema: Provenance.extend({ chosen: z.literal(true) }),
        },
        400: {
          description:
            'invalid, used (reuse) or expired token, or a fruit the scan did not offer (wrong candidate); the token is unchanged',
          schema: ErrorBody.extend({
            code: z
              .enum(['fruit_scan_token_invalid', 'fruit_scan_token_used', 'fruit_scan_token_expired', 'fruit_scan_not_offered'])
              .describe('which transition was refused'),
          }),
        },
        404: errorResponse('the chosen fruit is no longer public'),
      },
      handler: async ({ body }) => ({ ok: true, chosen: true, ...(await fp.choose(body.scan_token, body.fruit_id)) }),
    }),
    defineRoute({
      ...owner,
      path: '/api/fruit/{id}/publish',
      summary: 'Publish a fruit: public lookup and scans may offer it, and its photos become fetchable without a token',
      handler: async ({ params, caller }) => ({ ok: true, ...(await fp.setVisibility(caller!.account_id, params.id, 'public')) }),
    }),
    defineRoute({
      ...owner,
      path: '/api/fruit/{id}/unpublish',
      summary: 'Unpublish a fruit: it leaves public lookup and scans, and its photos need your token again',
      handler: async ({ params, caller }) => ({ ok: true, ...(await fp.setVisibility(caller!.account_id, params.id, 'private')) }),
    }),
  ];
}
