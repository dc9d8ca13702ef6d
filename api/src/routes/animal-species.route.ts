import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { accepted, answerJob } from './jobs.route.js';
import { uploadErrors } from './recognition.schemas.js';
import { AnimalCandidate, AnimalIdentifyOut, Channels } from './animal.schemas.js';
import { Ok, errorResponse } from './schemas.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';

const FarmId = z.string().trim().min(1).max(100);
const SpeciesCandidate = z.object({
  species: z.string().describe('catalogue id (or your stored name when the catalogue lacks it)'),
  score: z
    .number()
    .nullable()
    .describe('best detector score of its class in the photo; null when not measured or the detector has no class for it'),
  confusable_with: z.array(z.string()).describe('other species of the farm the detector cannot tell it from'),
});
const Detection = z.object({
  label: z.string().describe('COCO class'),
  score: z.number(),
  box: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
});
export const DetectOut = z.object({
  rule: z.enum(['new_farm', 'single_species', 'detector']).describe('which of the three detect rules decided'),
  species: z.string().nullable().describe('the species to proceed with; null while need_confirm'),
  need_confirm: z.boolean(),
  candidates: z.array(SpeciesCandidate),
  reason: z.enum(['no_detection', 'low_confidence', 'confusable']).optional(),
  detections: z.array(Detection).describe('animals the detector saw (rule 3 only)'),
  detector: z.object({ name: z.string(), version: z.string() }).nullable(),
});
const RULES =
  'Rules: (1) a farm with no animals of yours: every catalogue animal species is a candidate, need_confirm true; ' +
  '(2) a farm whose animals are all one species: that species at once, need_confirm false, no photo needed; ' +
  '(3) several species: a COCO object detector runs in a worker over the photo; the farm species whose detector class scores highest proceeds ' +
  '(need_confirm false) when its score is at least 0.5 and it shares no confusable group (species-catalog `confusable_groups`), no detector class, ' +
  'and no class with another species of the farm; otherwise need_confirm true with a narrowed list: the confident species and those confusable with it, ' +
  "or, when nothing scored 0.5, all the farm's species best score first (a weak sighting rules nothing out).";
const NoFile = z.object({ farm_id: FarmId });

type Cand = { individual_id: string; animal_did: string; probability: number };

/** The identify answer, read for one animal: matched, among the uncertain few, or not it. */
export function verifyAnswer(r: Record<string, unknown>, id: string) {
  const cand = (r.candidates as Cand[]).find((x) => x.individual_id === id) ?? null;
  const verdict = !cand ? 'no_match' : r.verdict === 'match' ? 'match' : 'uncertain';
  return {
    query_id: r.query_id as string,
    animal_did: animalDid(id),
    verdict,
    same: verdict === 'match' ? true : verdict === 'no_match' ? false : null,
    probability: cand?.probability ?? null,
    candidate: cand,
    model: r.model,
  };
}

/** Species detection, detect-then-identify scans and 1:1 verification. */
export function animalSpeciesRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/animal/scan',
      tag: 'animals',
      access: 'user',
      feature: 'animal-scan',
      summary: 'Detect the species in one photo, then identify the animal within that species',
      description:
        `multipart: \`files\` (one photo), farm_id (optional: your farm; absent means all your animals), channels (query). ${RULES} ` +
        'When the species still needs confirming, the identification runs over all the farm species (a weak guess never shuts the right animal out); `species` holds the decision.',
      bodyType: 'multipart',
      body: z.object({ farm_id: FarmId.optional(), channels: Channels }),
      upload: { field: 'files', maxFiles: 1, kind: 'image' },
      query: z.object({ channels: Channels }),
      responses: {
        200: { description: 'the species decision and the match result', schema: AnimalIdentifyOut.extend({ species: DetectOut }) },
        202: accepted,
        ...uploadErrors,
      },
      handler: async ({ body, query, files, caller }) => {
        const channels = query.channels ?? body.channels;
        return answerJob(await s.animalSpecies.scan(caller!, body.farm_id, files, channels), ({ detection, ...r }) => ({
          ok: true,
          ...r,
          species: detection,
        }));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/animal/detect',
      tag: 'animals',
      access: 'user',
      feature: 'animal-detect',
      summary: 'Decide which species a photo shows, among the species of your farm',
      description: `multipart: farm_id (required), \`files\` (one photo; needed only when the farm holds several species). ${RULES}`,
      bodyType: 'multipart',
      body: NoFile,
      upload: { field: 'files', maxFiles: 1, kind: 'image' },
      responses: {
        200: { description: 'the species decision', schema: Ok.extend({ farm_id: z.string() }).merge(DetectOut) },
        202: accepted,
        ...uploadErrors,
        422: errorResponse('farm_id missing, or no photo for a farm of several species, or an unusable photo'),
      },
      handler: async ({ body, files, caller }) =>
        answerJob(await s.animalSpecies.detect(caller!, body.farm_id, files), ({ detection }) => ({
          ok: true,
          farm_id: body.farm_id,
          ...(detection as object),
        })),
    }),
    defineRoute({
      method: 'post',
      path: '/api/animal/verify',
      tag: 'animals',
      access: 'user',
      feature: 'animal-verify',
      summary: 'Is this photo that animal? A 1:1 check with a calibrated verdict',
      description:
        'multipart: animal_did (or its uuid), `files` (one photo), channels (query, optional). The photo is identified among your animals and the answer read for this one: ' +
        '`match` (it is the match), `uncertain` (it is among the few offered), or `no_match` (another animal matched, or nothing did), with its calibrated probability; stored under query_id for identify_verdict.',
      bodyType: 'multipart',
      body: z.object({ animal_did: z.string().trim().min(1).max(200), channels: Channels }),
      upload: { field: 'files', maxFiles: 1, kind: 'image' },
      query: z.object({ channels: Channels }),
      responses: {
        200: {
          description: 'the verdict',
          schema: Ok.extend({
            query_id: z.string().uuid(),
            animal_did: z.string(),
            verdict: z.enum(['match', 'uncertain', 'no_match']),
            same: z.boolean().nullable().describe('true for match, false for no_match, null for uncertain'),
            probability: z
              .number()
              .nullable()
              .describe('calibrated probability that the photo shows this animal; null when it is not among the answers'),
            candidate: AnimalCandidate.nullable(),
            model: z.object({ name: z.string(), version: z.string() }),
          }),
        },
        202: accepted,
        ...uploadErrors,
      },
      handler: async ({ body, query, files, caller }) => {
        const { outcome, id } = await s.animals.verify(caller!, body.animal_did, files, query.channels ?? body.channels);
        return answerJob(outcome, (r) => ({ ok: true, ...verifyAnswer(r, id) }));
      },
    }),
  ];
}
