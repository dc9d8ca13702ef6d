import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { accepted, answerJob } from './jobs.route.js';
import { Ok, errorResponse } from './schemas.js';
import { AnchorOut, EntityParams } from './timeline.route.js';
import { CheckpointList, ConsistencyOut } from './evidence.schemas.js';

const STATUS_DOC =
  'Anchor status: `pending` (recorded, the backend has not answered yet) → `submitted` (Cardano: accepted by the endpoint, waiting for CARDANO_CONFIRMATIONS blocks) ' +
  '→ `confirmed` (local: the signed checkpoint is in the log, at once; Cardano: enough confirmations), or → `failed` (refused, no funds, or not in a block within CARDANO_TX_TIMEOUT_S; ask again to retry). ' +
  'A submitted anchor is re-checked whenever a proof, provenance or this route reads it (at most every CARDANO_POLL_S seconds).';

/** Anchoring an entity's chain root (owner only) and the health of the anchoring path. */
export function anchorRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/{entity_type}/{entity_id}/event/{event_id}/anchor',
      tag: 'timeline',
      access: 'user',
      feature: 'anchoring',
      summary: "Anchor the entity's whole chain root (owner only; metadata label 1455)",
      description: `Runs the \`anchor\` job with the configured backend (ANCHOR_BACKEND: local or cardano). event_id only records which event triggered it. ${STATUS_DOC}`,
      params: EntityParams.extend({ event_id: z.string().min(1).max(100) }),
      responses: {
        200: {
          description: 'anchored (or already anchored at this size)',
          schema: Ok.extend({
            entity_type: z.string(),
            entity_id: z.string(),
            event_id: z.string(),
            anchor: AnchorOut,
            job_id: z.string().optional(),
          }),
        },
        202: accepted,
        401: errorResponse('not signed in'),
        404: errorResponse('no such entity or event, or not yours: one identical answer'),
      },
      handler: async ({ params, caller }) => {
        const outcome = await s.anchors.request(caller!, params.entity_type, params.entity_id, params.event_id);
        return answerJob(outcome, (r) => ({ ok: true, ...r, job_id: outcome.done ? outcome.job_id : undefined }));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/anchor/checkpoints',
      tag: 'timeline',
      access: 'public',
      feature: 'anchoring',
      summary: 'The signed checkpoint log, paged (public)',
      description:
        'Every checkpoint the local backend signed, oldest first, with the service key and its fingerprint. Check a stretch offline with ' +
        '`npm run verify -- log checkpoints.json --trust-key <key> --include anchor.json`: signatures, consecutive seqs, each linking to the hash of the one before. ' +
        'Entries name entities by type and random id and give sizes and roots only. Empty with the cardano backend (the chain is its log).',
      query: z.object({
        after: z.coerce.number().int().min(-1).default(-1).describe('return checkpoints with seq greater than this'),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      }),
      responses: { 200: { description: 'one page of the log', schema: CheckpointList }, 422: errorResponse('after or limit out of range') },
      handler: async ({ query }) => s.anchorPublic.checkpoints(query.after, query.limit),
    }),
    defineRoute({
      method: 'get',
      path: '/api/anchor/consistency/{entity_type}/{entity_id}',
      tag: 'timeline',
      access: 'public',
      feature: 'anchoring',
      summary: 'Consistency proof between two anchored roots of a published entity (public)',
      description:
        'RFC 9162 proof that the chain at `first` events is a prefix of the chain at `second`, where both sizes were anchored. For a published tree, fruit or animal only; ' +
        'anything else (private, missing, a size that was never anchored) is the same 404. Check it with `npm run verify -- consistency proof.json --log checkpoints.json --trust-key <key>`.',
      params: z.object({ entity_type: z.enum(['tree', 'fruit', 'animal']), entity_id: z.string().min(1).max(100) }),
      query: z.object({ first: z.coerce.number().int().min(1), second: z.coerce.number().int().min(1) }),
      responses: {
        200: { description: 'the proof and both roots', schema: ConsistencyOut },
        404: errorResponse('not published, missing, or a size that was not anchored'),
        422: errorResponse('first or second is not a positive integer'),
      },
      handler: async ({ params, query }) => s.anchorPublic.consistency(params.entity_type, params.entity_id, query.first, query.second),
    }),
    defineRoute({
      method: 'get',
      path: '/api/anchor/status',
      tag: 'timeline',
      access: 'user',
      feature: 'anchoring',
      summary: 'Health of the anchoring path',
      description:
        'local: the service key (did:key) and whether the whole checkpoint log verifies. cardano: network, paying address, whether the endpoint answers. Plus anchor counts by status.',
      responses: {
        200: {
          description: 'health',
          schema: Ok.extend({
            backend: z.enum(['local', 'cardano']),
            healthy: z.boolean(),
            detail: z.record(z.string(), z.unknown()),
            anchors: z.record(z.string(), z.number().int()),
          }),
        },
        401: errorResponse('not signed in'),
      },
      handler: async () => s.anchors.status(),
    }),
  ];
}
