import { z } from 'zod';
import { ENTITY_TYPES } from '../../../shared/src/evidence/store/chain-store.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse } from './schemas.js';

/** Path identity of a timeline entity. */
export const EntityParams = z.object({
  entity_type: z.enum(ENTITY_TYPES).describe('tree, fruit and animal are enrolled individuals (their id); farm is a farm_id'),
  entity_id: z.string().min(1).max(100),
});
const EventParams = EntityParams.extend({ event_id: z.string().min(1).max(100) });
const Hex32 = z.string().regex(/^[0-9a-f]{64}$/);
const AuditStep = z.object({ sibling: Hex32, right: z.boolean().describe('true: the sibling is the right child') });

/** An anchor as proofs and provenance show it. */
export const AnchorOut = z.object({
  anchor_id: z.string(), backend: z.enum(['local', 'cardano']), status: z.enum(['pending', 'submitted', 'confirmed', 'failed']),
  size: z.number().int().optional().describe('anchored tree size (owner only)'), root_hex: Hex32,
  tx_hash: z.string().nullable(), explorer_url: z.string().nullable(), confirmations: z.number().int(),
  checkpoint_seq: z.number().int().nullable(), error: z.string().nullable(), created_at: z.string(), updated_at: z.string(),
});
const EventOut = z.object({
  event_id: z.string(), entity_type: z.string(), entity_id: z.string(), seq: z.number().int().optional().describe('owner only'),
  body: z.record(z.string(), z.unknown()), author_role: z.enum(['owner', 'contributor']).nullable(), created_at: z.string(),
  visibility: z.enum(['public', 'private']), approval: z.enum(['approved', 'pending']), prev_hash: Hex32, leaf_hash: Hex32,
});
const InheritedOut = EventOut.omit({ entity_type: true, entity_id: true, seq: true, prev_hash: true, leaf_hash: true })
  .extend({ inherited_from: z.object({ entity_type: z.enum(['farm', 'care']).describe('farm: a care event of the enclosing farm; care: an entry of this individual\'s care log (POST /api/care/log), entity_id being the care entry id'), entity_id: z.string() }) });

const VISIBILITY =
  'Owner (from the token) → the event is public and approved. Any other signed-in account → private and pending, until the owner approves it. ' +
  'Entity with no resolvable owner (not enrolled, deleted, wrong kind, or a farm_id nobody has enrolled into) → 403. No token → 401. ' +
  'A farm is owned by the account that enrolled the first individual with that farm_id. ' +
  'An event whose body has `"type": "care"` on a farm chain is inherited into the timelines of that owner\'s individuals on the farm.';

const notFound = errorResponse('no such entity, or no such event, or an event you may not see: one identical answer');

/** Timeline routes of every entity type: append, read, approve, inclusion and consistency proofs. */
export function timelineRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post', path: '/api/{entity_type}/{entity_id}/event', tag: 'timeline', access: 'user', feature: 'timeline',
      summary: 'Record an event on an entity\'s hash-chained timeline', description: `Body: any JSON object. ${VISIBILITY}`,
      params: EntityParams, body: z.record(z.string(), z.unknown()),
      responses: {
        200: { description: 'appended; prev_hash/leaf_hash link it into the chain', schema: Ok.extend({ event: EventOut }) },
        401: errorResponse('not signed in'), 403: errorResponse('the entity has no resolvable owner'), 422: errorResponse('body is not a JSON object'),
      },
      handler: async ({ params, body, caller }) => s.timeline.post(caller!, params.entity_type, params.entity_id, body),
    }),
    defineRoute({
      method: 'get', path: '/api/{entity_type}/{entity_id}/timeline', tag: 'timeline', access: 'optional', feature: 'timeline',
      summary: 'Events of an entity, with chain_ok',
      description: 'Own-chain events plus care events inherited from the enclosing farm and from the individual\'s care log (marked `inherited_from`, no hashes), merged by time. ' +
        'Guests see public and approved events; an author also sees their own; the owner sees all, with `seq` and `size`. `chain_ok` re-derives every hash and link of the own chain.',
      params: EntityParams,
      responses: {
        200: { description: 'the timeline', schema: Ok.extend({ entity_type: z.string(), entity_id: z.string(), chain_ok: z.boolean(), size: z.number().int().optional(), broken_at: z.number().int().optional(), events: z.array(z.union([EventOut, InheritedOut])) }) },
        404: errorResponse('no such entity'),
      },
      handler: async ({ params, caller }) => s.timeline.timeline(caller, params.entity_type, params.entity_id),
    }),
    defineRoute({
      method: 'get', path: '/api/{entity_type}/{entity_id}/proof/{event_id}', tag: 'timeline', access: 'optional', feature: 'timeline',
      summary: 'RFC 6962 inclusion proof of one event in the chain root',
      description: 'Leaf = SHA-256(0x00 || DAG-CBOR of the event), node = SHA-256(0x01 || left || right). `path` goes from the leaf up; `right: true` means the sibling is on the right. ' +
        '`n` and `index` are shown to the owner only; the owner may ask for an earlier tree size with `size` (e.g. an anchored one). `anchor` is null when that root is not anchored.',
      params: EventParams, query: z.object({ size: z.coerce.number().int().min(1).optional() }),
      responses: {
        200: { description: 'the proof', schema: Ok.extend({ event_id: z.string(), leaf_hash: Hex32, path: z.array(AuditStep), root_hex: Hex32, n: z.number().int().optional(), index: z.number().int().optional(), anchor: AnchorOut.nullable() }) },
        404: notFound, 422: errorResponse('size out of range'),
      },
      handler: async ({ params, query, caller }) => s.timeline.proof(caller, params.entity_type, params.entity_id, params.event_id, query.size),
    }),
    defineRoute({
      method: 'post', path: '/api/{entity_type}/{entity_id}/event/{event_id}/approve', tag: 'timeline', access: 'user', feature: 'timeline',
      summary: 'Approve a pending event (owner only): it becomes public and approved',
      description: 'Approval changes no hash: visibility and approval are not part of the hashed event.',
      params: EventParams,
      responses: { 200: { description: 'approved', schema: Ok.extend({ event: EventOut }) }, 401: errorResponse('not signed in'), 403: errorResponse('not the owner'), 404: notFound },
      handler: async ({ params, caller }) => s.timeline.approve(caller!, params.entity_type, params.entity_id, params.event_id),
    }),
    defineRoute({
      method: 'get', path: '/api/{entity_type}/{entity_id}/consistency', tag: 'timeline', access: 'user', feature: 'timeline',
      summary: 'RFC 9162 consistency proof between two sizes of the chain (owner only)',
      description: 'Proves the root at `first` events is a prefix of the root at `second` (default: the current size), i.e. an anchored root was extended, never rewritten. ' +
        'Check with verifyConsistency in shared/src/evidence/merkle-consistency.ts or any RFC 9162 verifier.',
      params: EntityParams, query: z.object({ first: z.coerce.number().int().min(1), second: z.coerce.number().int().min(1).optional() }),
      responses: {
        200: { description: 'the proof', schema: Ok.extend({ first: z.number().int(), second: z.number().int(), first_root: Hex32, second_root: Hex32, proof: z.array(Hex32) }) },
        401: errorResponse('not signed in'), 403: errorResponse('not the owner'), 404: errorResponse('no such entity'), 422: errorResponse('sizes out of range'),
      },
      handler: async ({ params, query, caller }) => s.timeline.consistency(caller!, params.entity_type, params.entity_id, query.first, query.second),
    }),
  ];
}
