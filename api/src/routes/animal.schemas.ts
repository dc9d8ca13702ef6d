import { z } from 'zod';
import { CandidateOut, IdentifyOut } from './recognition.schemas.js';

/** Schemas shared by the animal identify routes (animal.route.ts) and the species routes (animal-species.route.ts). */
export const Channels = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(['body', 'face', 'bio'])).min(1))
  .optional()
  .describe('comma-separated subset of body, face, bio; absent means every channel');

export const AnimalCandidate = CandidateOut.extend({
  animal_did: z.string().describe("the animal's identifier, used in /api/animal/{animal_did}"),
});
export const AnimalIdentifyOut = IdentifyOut.extend({ match: AnimalCandidate.nullable(), candidates: z.array(AnimalCandidate) });
