import { z } from 'zod';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { Kind } from '../../../shared/src/domain/jobs.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { accepted, answerJob } from './jobs.route.js';
import { IdentifyOut, uploadErrors } from './recognition.schemas.js';
import { Ok } from './schemas.js';

const AutoForm = z.object({
  lat: z.coerce.number().min(-90).max(90).optional(),
  lon: z.coerce.number().min(-180).max(180).optional(),
});

const Checked = z.object({
  kind: Kind,
  verdict: z.enum(['match', 'uncertain', 'no_match']),
  top_probability: z.number().nullable(),
});
const AutoOut = Ok.extend({
  kind: z.enum([...Kind.options, 'not_recognised']),
  lane: z
    .enum(['/api/identify', '/api/fruit/identify', '/api/animal/identify'])
    .nullable()
    .describe('the route whose own answer `result` is; null when not recognised'),
  result: IdentifyOut.passthrough()
    .nullable()
    .describe("that route's response, verbatim (its query_id takes identify_verdict labels as usual)"),
  reason: z
    .enum(['unusable_photo', 'nothing_enrolled', 'no_enrolled_match'])
    .optional()
    .describe(
      'only when not recognised: the photo is blank, dark or blurred; you have nothing enrolled; or none of your trees, fruit or animals matched',
    ),
  checked: z.array(Checked).describe("what each of your enrolled kinds answered, so a client can offer that kind's own route"),
});

const DESCRIPTION =
  'The kind is decided by evidence, not by a guess from appearance: every kind you have enrolled (your own pool plus pools shared with you) is searched, ' +
  'and only a confident `match` picks the lane. Flowers, processed goods, blank or unrelated photos match nothing and come back as `kind: not_recognised` ' +
  "(HTTP 200, ok:true) with `reason` and `checked`; a photo of an individual you have not enrolled does too: use the kind's own route to get its `uncertain` short list or to enrol it. " +
  `lat and lon (both or neither) narrow trees and fruit to those enrolled within AUTO_NEAR_KM (default 5 km) or enrolled without a location; animals are never narrowed by place.`;

export function autoRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/identify/auto',
      tag: 'trees',
      access: 'user',
      feature: 'identify-auto',
      summary: 'Identify a tree, fruit or animal without saying which; answers {kind, lane, result}',
      description: DESCRIPTION,
      bodyType: 'multipart',
      body: AutoForm,
      upload: { field: 'files', maxFiles: 10, kind: 'image' },
      responses: {
        200: { description: 'the lane taken and its answer, or not recognised', schema: AutoOut },
        202: accepted,
        ...uploadErrors,
      },
      handler: async ({ body, files, caller }) => {
        if ((body.lat === undefined) !== (body.lon === undefined))
          throw ERRORS.validation(body.lat === undefined ? 'lat' : 'lon', 'send lat and lon together');
        const near = body.lat !== undefined && body.lon !== undefined ? { lat: body.lat, lon: body.lon } : undefined;
        return answerJob(await s.individuals.identifyAuto(caller!, files, near), (r) => ({ ok: true, ...r }));
      },
    }),
  ];
}
