import { z } from 'zod';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { renderMessage } from '../../../shared/src/domain/messages.js';
import type { Services } from '../services/index.js';
import { NAME_MAX_CHARS } from '../services/trees.service.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { ErrorBody, Ok, Paged, errorResponse } from './schemas.js';
import { flag, ViewsOut } from './trees-manage.route.js';
import { verdictRoute } from './verdict.route.js';

const AnimalRef = z.string().trim().min(1).max(200).describe('animal_did (did:markless:animal:<uuid>) or the bare uuid');
const AnimalOut = z.object({
  animal_did: z.string(),
  individual_id: z.string().uuid(),
  farm_id: z.string().nullable(),
  species: z.string().nullable(),
  name: z.string().nullable(),
  image_count: z.number().int(),
  cover: z.object({ image_id: z.string(), cid: z.string() }).nullable().describe('first photo; GET /api/blobs/{cid}'),
  created_at: z.string(),
});
const AnimalDetailOut = Ok.merge(AnimalOut)
  .extend({ owner: z.boolean().describe('false when you see it through a grant') })
  .merge(ViewsOut.omit({ ok: true, tree_id: true }));
const Model3dOut = Ok.extend({
  animal_did: z.string(),
  available: z.boolean(),
  status: z.enum(['not_built', 'failed', 'built']),
  model_cid: z.string().nullable().optional(),
  meta: z.object({
    reason_code: z.string().nullable().describe('`not_yet_built` when never built; the gate code when a gate blocked it'),
    gate: z.unknown().optional().describe("failed: the gate's measurements"),
    trust: z
      .unknown()
      .optional()
      .describe('built: points on the animal vs whole scene, and whether too sparse; always present with a model'),
  }),
});
const Who = z.object({ animal_did: z.string(), name: z.string().nullable() });
const Channel = z.enum(['body', 'face', 'bio']);
const DriftOut = Ok.extend({
  farm_id: z.string(),
  individuals_considered: z.number().int(),
  queries_considered: z.number().int(),
  needs_rephotography: z.array(
    Who.extend({
      answers: z.number().int(),
      earlier_mean: z.number(),
      recent_mean: z.number(),
      recent_not_match: z.number(),
      reason: z.enum(['probability_dropping', 'mostly_uncertain']),
      channels: z.array(Channel),
    }),
  ),
  confusable_pairs: z.array(
    z.object({
      a: Who,
      b: Who,
      similarity: z.number(),
      self_similarity: z.number(),
      uncertain_together: z.number().int(),
      close_calls: z
        .number()
        .int()
        .describe("stored answers where one was the runner-up with at least 80% of the other's keypoint evidence"),
      channels: z.array(Channel),
    }),
  ),
  channels_to_capture: z.array(z.object({ channel: Channel, animals: z.number().int() })),
  rules: z.record(z.string(), z.unknown()),
});
const notYours = { 401: errorResponse('not signed in'), 404: errorResponse('no such animal, or not yours (the same answer)') };
const Params = z.object({ animal_did: AnimalRef });

/** Lists, drift, renaming and labels: fixed paths, mounted before `/api/animal/{animal_did}` so it cannot shadow them. */
export function animalFixedRoutes(s: Services): RouteDef[] {
  return [
    verdictRoute(s, { path: '/api/animal/identify_verdict', tag: 'animals', what: 'animal', kind: 'animal' }),
    defineRoute({
      method: 'get',
      path: '/api/animal/list',
      tag: 'animals',
      access: 'user',
      feature: 'animal-list',
      summary: 'Your animals on one farm, paged',
      description: 'farm_id is one of your farms (farm ids are per account). species filters by catalogue id or any stored spelling.',
      query: z.object({
        farm_id: z.string().trim().min(1).max(100),
        species: z.string().trim().min(1).max(100).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        offset: z.coerce.number().int().min(0).default(0),
      }),
      responses: {
        200: { description: 'one page, oldest first', schema: Paged.extend({ farm_id: z.string(), animals: z.array(AnimalOut) }) },
        401: errorResponse('not signed in'),
        422: errorResponse('farm_id missing, or limit/offset out of range'),
      },
      handler: async ({ query, caller }) => ({ ok: true, ...(await s.animals.list(caller!, query)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/animal/drift/report',
      tag: 'animals',
      access: 'user',
      feature: 'animal-drift',
      summary: 'Animals needing new photos, pairs about to be confused, channels to capture',
      description:
        "Measured from stored identify answers (top candidate probability and verdict, oldest vs newest) and from the enrolled photos' global embeddings. " +
        "An animal is judged after 4 answers. A pair is listed when their embeddings are as alike as one animal photographed twice and two stored answers were close calls between them (runner-up with at least 80% of the keypoint evidence), or when twice offered as the two leading candidates of an `uncertain` answer, the runner-up with at least 80% of the leader's probability. " +
        "An animal needs new photos when its recent answers' mean probability fell by 0.1 or more (`probability_dropping`), or when they are mostly not `match` where its earlier ones were mostly `match` (`mostly_uncertain`).",
      query: z.object({ farm_id: z.string().trim().min(1).max(100) }),
      responses: {
        200: { description: 'the report', schema: DriftOut },
        401: errorResponse('not signed in'),
        422: errorResponse('farm_id missing'),
      },
      handler: async ({ query, caller }) => ({ ok: true, ...(await s.animalDrift.report(scopeOfCaller(caller!), query.farm_id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/animal/rename',
      tag: 'animals',
      access: 'user',
      feature: 'animal-rename',
      summary: 'Rename an animal',
      description: `Form (or JSON) animal_did, name. Cleaned like tree names (at most ${NAME_MAX_CHARS} characters); nothing left after cleaning answers 200 with ok:false and code \`rename_empty\`.`,
      bodyType: 'form',
      body: z.object({ animal_did: AnimalRef, name: z.string().max(1000) }),
      responses: {
        200: {
          description: 'renamed (ok:true) or nothing left after cleaning (ok:false)',
          schema: z.union([Ok.extend({ animal_did: z.string(), name: z.string() }), ErrorBody]),
        },
        403: errorResponse('read-only grantee'),
        ...notYours,
      },
      handler: async ({ body, caller, lang }) => {
        const done = await s.animals.rename(caller!.account_id, body.animal_did, body.name);
        return done
          ? { ok: true, ...done }
          : { ok: false, error: renderMessage('rename_empty', lang), detail: 'name', code: 'rename_empty' };
      },
    }),
  ];
}

/** One animal by its animal_did (or uuid): metadata, 3D answer, deletion. */
export function animalItemRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/animal/{animal_did}',
      tag: 'animals',
      access: 'user',
      feature: 'animal-get',
      summary: 'One animal: metadata and photos, never embeddings; describe=true adds features_vi',
      description:
        'features_vi is measured from the stored views like /api/tree_views?describe=1: which parts of the coat re-photograph consistently (cao, vừa, thấp).',
      params: Params,
      query: z.object({ describe: flag.optional() }),
      responses: { 200: { description: 'the animal', schema: AnimalDetailOut }, ...notYours },
      handler: async ({ params, query, caller }) => {
        const a = await s.animals.get(caller!.account_id, params.animal_did, query.describe ?? false);
        return { ok: true, ...a, count: a.views.length };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/animal/{animal_did}/model3d',
      tag: 'animals',
      access: 'user',
      feature: 'animal-model3d',
      summary: "The animal's 3D answer (read-only; no route builds one)",
      description:
        'Never built: available false, status not_built, meta.reason_code `not_yet_built`. Blocked by a gate: available false, status failed, meta.reason_code the gate code, meta.gate its measurements. Built: available true, meta.trust present.',
      params: Params,
      responses: { 200: { description: 'the 3D answer', schema: Model3dOut }, ...notYours },
      handler: async ({ params, caller }) => ({ ok: true, ...(await s.animals.model3d(caller!.account_id, params.animal_did)) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/animal/{animal_did}',
      tag: 'animals',
      access: 'user',
      feature: 'animal-delete',
      summary: "Delete an animal, its photos' rows and embeddings; an audit entry and its chain history stay",
      description:
        "Owner only. The animal's own timeline gets a `deleted` event (history is never erased) and an audit row is written; the animal leaves lists, lookups and matching at once.",
      params: Params,
      responses: {
        200: {
          description: 'deleted',
          schema: Ok.extend({
            animal_did: z.string(),
            deleted: z.literal(true),
            images_removed: z.number().int(),
            embeddings_removed: z.number().int(),
            audit_event: z.object({ event_id: z.string(), seq: z.number().int(), leaf_hash: z.string() }),
          }),
        },
        403: errorResponse('you see it through a grant, you do not own it'),
        ...notYours,
      },
      handler: async ({ params, caller }) => ({ ok: true, ...(await s.animals.remove(caller!, params.animal_did)) }),
    }),
  ];
}
