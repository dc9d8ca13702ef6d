import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { AnimalRef, notYours } from './animal-review.route.js';
import { Ok, errorResponse } from './schemas.js';

const Stamp = z.object({ event_id: z.string(), seq: z.number().int(), leaf_hash: z.string() });
const MergeId = z.string().trim().min(1).max(100).describe('merge_id from the merge answer (a uuid)');
const Merge = z.object({
  merge_id: z.string(),
  into: z.object({ animal_did: z.string(), name: z.string().nullable() }).describe('the animal that was kept'),
  from: z.object({ animal_did: z.string(), name: z.string().nullable() }).describe('the animal merged into it'),
  photos_moved: z.number().int(),
  photos: z.array(z.object({ cid: z.string(), url: z.string() })).describe("`from`'s photos as they were before the merge"),
  created_at: z.string(),
  undone_at: z.string().nullable().describe('when the merge was undone; null while it stands'),
});
const conflict = {
  409: errorResponse('already undone (merge_already_undone), or the kept animal was deleted or merged away since (unmerge_into_gone)'),
};

/**
 * Merging two of an owner's animals and undoing it (issue 24, issue 39 item 7); fixed paths,
 * mounted before `/api/animal/{animal_did}`. Another account's merge is the same 404 as none.
 */
export function animalMergeRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/animal/merge',
      tag: 'animals',
      access: 'user',
      feature: 'animal-merge',
      summary: 'Merge two of your animals that are one: `from` goes into `into`; it can be undone',
      description:
        "Form into and from (animal_did or uuid, both yours). `from`'s photos move to `into`, `from` leaves lists and matching, and both chains record it: `into` gets a `merged` event carrying `from`'s chain head and a summary of its events, `from` a `merged_into` event. " +
        'The answer names the merge (merge_id); POST /api/animal/merges/{merge_id}/undo undoes it.',
      bodyType: 'form',
      body: z.object({ into: AnimalRef, from: AnimalRef }),
      responses: {
        200: {
          description: 'merged',
          schema: Ok.extend({
            merge_id: z.string().describe('to undo it: POST /api/animal/merges/{merge_id}/undo'),
            animal_did: z.string(),
            merged: z.string(),
            photos_moved: z.number().int(),
            event: Stamp,
            merged_event: Stamp,
          }),
        },
        ...notYours,
      },
      handler: async ({ body, caller }) => ({ ok: true, ...(await s.animalMerge.merge(caller!, body.into, body.from)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/animal/merges',
      tag: 'animals',
      access: 'user',
      feature: 'animal-merge',
      summary: 'The merges into or out of one of your animals, newest first',
      description:
        'Query animal_did (one of your live animals). Each merge names both animals, the photos it moved and whether it was undone.',
      query: z.object({ animal_did: AnimalRef }),
      responses: {
        200: { description: 'the merges', schema: Ok.extend({ animal_did: z.string(), merges: z.array(Merge) }) },
        ...notYours,
      },
      handler: async ({ query, caller }) => ({ ok: true, ...(await s.animalMerge.list(caller!, query.animal_did)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/animal/merges/{merge_id}',
      tag: 'animals',
      access: 'user',
      feature: 'animal-merge',
      summary: 'One of your merges',
      params: z.object({ merge_id: MergeId }),
      responses: { 200: { description: 'the merge', schema: Ok.merge(Merge) }, ...notYours },
      handler: async ({ params, caller }) => ({ ok: true, ...(await s.animalMerge.get(caller!, params.merge_id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/animal/merges/{merge_id}/undo',
      tag: 'animals',
      access: 'user',
      feature: 'animal-merge',
      summary: 'Un-merge: both animals back as they were, each found by identify again',
      description:
        '`from` returns to lists and matching with its photos and their descriptors (under new image ids, so every index rebuilds); the photos the merge added to `into` leave it. Both chains record it: `into` an `unmerged` event, `from` a `restored` event, each naming the merge. A photo deleted from `into` after the merge cannot come back (photos_lost).',
      params: z.object({ merge_id: MergeId }),
      responses: {
        200: {
          description: 'undone',
          schema: Ok.extend({
            merge_id: z.string(),
            animal_did: z.string().describe('the animal that was kept'),
            restored: z.string().describe('the animal given back its photos'),
            photos_restored: z.number().int(),
            photos_removed: z.number().int().describe("the merge's copies removed from the kept animal"),
            photos_lost: z.number().int(),
            event: Stamp,
            restored_event: Stamp,
          }),
        },
        ...notYours,
        ...conflict,
      },
      handler: async ({ params, caller }) => ({ ok: true, ...(await s.animalMerge.unmerge(caller!, params.merge_id)) }),
    }),
  ];
}
