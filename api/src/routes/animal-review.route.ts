import { z } from 'zod';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import type { Services } from '../services/index.js';
import { animalIdOr404 } from '../services/animals.service.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { accepted, answerJob } from './jobs.route.js';
import { EnrollOut, uploadErrors } from './recognition.schemas.js';
import { errorResponse } from './schemas.js';
import { flag } from './trees-manage.route.js';

export const AnimalRef = z.string().trim().min(1).max(200).describe('animal_did (did:markless:animal:<uuid>) or the bare uuid');
export const notYours = {
  401: errorResponse('not signed in'),
  404: errorResponse('no such query or animal, or not yours (the same answer)'),
  422: errorResponse('missing field or wrong type'),
};
const AddedOut = EnrollOut.extend({ animal_did: z.string() });
const asAnimal = (extra: Record<string, unknown>) => (r: Record<string, unknown>) => ({
  ok: true,
  ...r,
  animal_did: animalDid(String(r.individual_id)),
  ...extra,
});

/** Review decisions and identity hygiene for animals (issue 24); fixed paths, mounted before `/api/animal/{animal_did}`. */
export function animalReviewRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/animal/confirm',
      tag: 'animals',
      access: 'user',
      feature: 'animal-review',
      summary: '"This one": confirm who an identify query showed; its photo is added to that animal',
      description:
        'Form query_id (an animal identify answer of yours) and animal_did (any of your animals, shown or not). Stores the label (correct when it was the top candidate, other otherwise), ' +
        "adds the query's photo(s) to the animal (quality warnings accepted: you looked at it) and records an `identification_confirmed` event in the animal's chain. Idempotent: confirming again adds nothing.",
      bodyType: 'form',
      body: z.object({ query_id: z.string().uuid(), animal_did: AnimalRef }),
      responses: {
        200: {
          description: 'confirmed; the photos now belong to the animal',
          schema: AddedOut.extend({ verdict: z.enum(['correct', 'other']) }),
        },
        202: accepted,
        ...notYours,
      },
      handler: async ({ body, caller }) => {
        const done = await s.animalReview.confirm(caller!, body.query_id, body.animal_did);
        return answerJob(done.outcome, asAnimal({ verdict: done.verdict }));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/animal/{animal_did}/photos',
      tag: 'animals',
      access: 'user',
      feature: 'animal-photos',
      summary: 'Add photos to one of your animals',
      description:
        "multipart/form-data: `files` (1 to 20 photos), accept_warnings (keep photos refused only with a warning). Recorded as a `photos_added` event in the animal's chain. Every refused photo is named in one 422 `photos_refused`.",
      params: z.object({ animal_did: AnimalRef }),
      bodyType: 'multipart',
      body: z.object({ accept_warnings: flag.optional() }),
      upload: { field: 'files', maxFiles: 20, kind: 'image' },
      responses: { 200: { description: 'photos added', schema: AddedOut }, 202: accepted, ...uploadErrors },
      handler: async ({ params, body, files, caller }) =>
        answerJob(
          await s.individuals.addViews(caller!, 'animal', animalIdOr404(params.animal_did), files, 'add', {
            acceptWarnings: body.accept_warnings === true,
          }),
          asAnimal({}),
        ),
    }),
  ];
}
