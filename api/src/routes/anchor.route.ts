import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { accepted, answerJob } from './jobs.route.js';
import { Ok, errorResponse } from './schemas.js';
import { AnchorOut, EntityParams } from './timeline.route.js';

const STATUS_DOC =
  'Anchor status: `pending` (recorded, the backend has not answered yet) → `submitted` (Cardano: accepted by the endpoint, waiting for CARDANO_CONFIRMATIONS blocks) ' +
  '→ `confirmed` (local: the signed checkpoint is in the log, at once; Cardano: enough confirmations), or → `failed` (refused, no funds, or not in a block within CARDANO_TX_TIMEOUT_S; ask again to retry). ' +
  'A submitted anchor is re-checked whenever a proof, provenance or this route reads it (at most every CARDANO_POLL_S seconds).';

/** Anchoring an entity's chain root (owner only) and the health of the anchoring path. */
export function anchorRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post', path: '/api/{entity_type}/{entity_id}/event/{event_id}/anchor', tag: 'timeline', access: 'user', feature: 'anchoring',
      summary: 'Anchor the entity\'s whole chain root (owner only; metadata label 1455)',
      description: `Runs the \`anchor\` job with the configured backend (ANCHOR_BACKEND: local or cardano). event_id only records which event triggered it. ${STATUS_DOC}`,
      params: EntityParams.extend({ event_id: z.string().min(1).max(100) }),
      responses: {
        200: { description: 'anchored (or already anchored at this size)', schema: Ok.extend({ entity_type: z.string(), entity_id: z.string(), event_id: z.string(), anchor: AnchorOut, job_id: z.string().optional() }) },
        202: accepted, 401: errorResponse('not signed in'), 404: errorResponse('no such entity or event, or not yours: one identical answer'),
      },
      handler: async ({ params, caller }) => {
        const outcome = await s.anchors.request(caller!, params.entity_type, params.entity_id, params.event_id);
        return answerJob(outcome, (r) => ({ ok: true, ...r, job_id: outcome.done ? outcome.job_id : undefined }));
      },
    }),
    defineRoute({
      method: 'get', path: '/api/anchor/status', tag: 'timeline', access: 'user', feature: 'anchoring',
      summary: 'Health of the anchoring path',
      description: 'local: the service key (did:key) and whether the whole checkpoint log verifies. cardano: network, paying address, whether the endpoint answers. Plus anchor counts by status.',
      responses: {
        200: { description: 'health', schema: Ok.extend({ backend: z.enum(['local', 'cardano']), healthy: z.boolean(), detail: z.record(z.string(), z.unknown()), anchors: z.record(z.string(), z.number().int()) }) },
        401: errorResponse('not signed in'),
      },
      handler: async () => s.anchors.status(),
    }),
  ];
}
