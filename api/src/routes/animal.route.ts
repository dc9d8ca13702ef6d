import { z } from 'zod';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { animalSpeciesRoutes } from './animal-species.route.js';
import { accepted, answerJob } from './jobs.route.js';
import { flag } from './trees-manage.route.js';
import { EnrollOut, uploadErrors } from './recognition.schemas.js';
import { AnimalIdentifyOut, Channels } from './animal.schemas.js';

/** Spec section 8: an animal is enrolled from at least 3 photos taken from different angles. */
export const ANIMAL_MIN_PHOTOS = 3;
/** Photos of one animal fused as one identify query (as trees' /api/identify). */
export const ANIMAL_MAX_QUERY_PHOTOS = 10;

const AnimalEnrollForm = z.object({
  species: z.string().trim().min(1).max(100),
  farm_id: z.string().trim().min(1).max(100),
  name: z.string().trim().max(200).optional(),
  zone: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('the part of the farm it lives in; population counts of that zone compare against it'),
  query_id: z
    .string()
    .uuid()
    .optional()
    .describe(
      '"none of these": the photos of this identify query of yours are kept with the new animal and count towards the 3; the query is labelled with it',
    ),
  accept_warnings: flag
    .optional()
    .describe(
      'keep photos refused only with a warning (too_dark, too_blurred, near_identical); the 422 `refused` list says which are warnings',
    ),
});
const AnimalIdentifyForm = z.object({ farm_id: z.string().trim().min(1).max(100).optional(), channels: Channels });

const AnimalEnrollOut = EnrollOut.extend({ animal_did: z.string() });

const asAnimal = (r: Record<string, unknown>) => ({ ok: true, ...r, animal_did: animalDid(String(r.individual_id)) });

/** Animal enrolment and identification (the mirror is added by animal-manage.route.ts for every animal route). */
export function animalRecognitionRoutes(s: Services): RouteDef[] {
  const ind = s.individuals;
  return [
    defineRoute({
      method: 'post',
      path: '/api/animal/enroll',
      tag: 'animals',
      access: 'user',
      feature: 'animal-enroll',
      summary: `Enrol one animal from at least ${ANIMAL_MIN_PHOTOS} photos taken from different angles`,
      description:
        'multipart/form-data: `files` (repeatable, 3 to 20 photos of the coat pattern or muzzle, 20 MB each, 64 MB in all), species and farm_id (required), name. ' +
        "The detector reports the animal's box (`images[].subject`) but does not gate: a close-up with no detectable animal is used whole. " +
        'Every refused photo is named in one 422 `photos_refused` whose `refused` lists {index, filename, reasons, warning}; with `accept_warnings=true` the warnings (dark, blurred, near-identical) are kept.',
      bodyType: 'multipart',
      body: AnimalEnrollForm,
      upload: { field: 'files', maxFiles: 20, kind: 'image' },
      responses: { 200: { description: 'the new individual', schema: AnimalEnrollOut }, 202: accepted, ...uploadErrors },
      handler: async ({ body, files, caller }) => {
        const { query_id: queryId, ...attrs } = body;
        const q = queryId ? await s.animalReview.query(caller!, queryId) : null;
        const kept = q?.image_cids ?? [];
        if (files.length + kept.length < ANIMAL_MIN_PHOTOS)
          throw ERRORS.validation('files', `at least ${ANIMAL_MIN_PHOTOS} photos from different angles`);
        const outcome = await ind.enroll(caller!, { kind: 'animal', attrs, files, queryCids: kept });
        if (q && queryId && outcome.done)
          await s.animalReview.labelNew(caller!, queryId, q.result.verdict, String(outcome.result.individual_id));
        return answerJob(outcome, asAnimal);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/animal/identify',
      tag: 'animals',
      access: 'user',
      feature: 'animal-identify',
      summary: 'Identify an animal from one or more photos of it among your own (and shared) animals',
      description: `Same verdicts as /api/identify; candidates also carry animal_did. Several photos (\`files\`, up to ${ANIMAL_MAX_QUERY_PHOTOS}) must show the same animal: they are one query, each candidate keeping its best evidence over them.`,
      bodyType: 'multipart',
      body: AnimalIdentifyForm,
      upload: { field: 'files', maxFiles: ANIMAL_MAX_QUERY_PHOTOS, kind: 'image' },
      query: z.object({ channels: Channels }),
      responses: { 200: { description: 'a verdict', schema: AnimalIdentifyOut }, 202: accepted, ...uploadErrors },
      handler: async ({ body, query, files, caller }) => {
        const { channels: formChannels, ...filters } = body;
        // The spec passes channels in the query string; a form field is accepted too.
        const channels = query.channels ?? formChannels;
        return answerJob(await ind.identify(caller!, { kind: 'animal', files, filters, ...(channels ? { channels } : {}) }), (r) => ({
          ok: true,
          ...r,
        }));
      },
    }),
    ...animalSpeciesRoutes(s),
  ];
}
