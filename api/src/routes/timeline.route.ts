import { z } from 'zod';
import { ENTITY_TYPES } from '../../../shared/src/repos/evidence/chain-store.js';
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
  anchor_id: z.string(),
  backend: z.enum(['local', 'cardano']),
  status: z.enum(['pending', 'submitted', 'confirmed', 'failed']),
  size: z.number().int().optional().describe('anchored tree size (owner only)'),
  root_hex: Hex32,
  tx_hash: z.string().nullable(),
  explorer_url: z.string().nullable(),
  confirmations: z.number().int(),
  checkpoint_seq: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const EventOut = z.object({
  event_id: z.string(),
  entity_type: z.string(),
  entity_id: z.string(),
  seq: z.number().int().optional().describe('owner only'),
  body: z.record(z.string(), z.unknown()),
  author_role: z.enum(['owner', 'contributor']).nullable(),
  created_at: z.string(),
  visibility: z.enum(['public', 'private']),
  approval: z.enum(['approved', 'pending']),
  prev_hash: Hex32.optional().describe('absent on a pending contribution: it is in no chain yet'),
  leaf_hash: Hex32.optional().describe('absent on a pending contribution: it is in no chain yet'),
});
const InheritedOut = EventOut.omit({ entity_type: true, entity_id: true, seq: true, prev_hash: true, leaf_hash: true }).extend({
  inherited_from: z.object({
    entity_type: z
      .enum(['farm', 'care'])
      .describe(
        "farm: a care event of the enclosing farm; care: an entry of this individual's care log (POST /api/care/log), entity_id being the care entry id",
      ),
    entity_id: z.string(),
  }),
});

const VISIBILITY =
  'Owner (from the token) → appended to the hash chain, public and approved. Another account that may read the entity (a current grantee, or anyone on a published individual) → ' +
  'a private, pending contribution kept OUTSIDE the chain (no seq/prev_hash/leaf_hash), seen by the owner and its author only, until the owner approves it ' +
  '(then it is appended to the chain by that approval, with `_contribution` {author_id, submitted_at, approved_by, approved_at} inside the hashed body) or rejects it. ' +
  'Limits: body at most 16 KB of JSON, nesting at most 32 deep (422); at most 20 pending contributions per author per entity per 24 h (429 with Retry-After), and all non-owners together at most TIMELINE_PENDING_MAX_PER_ENTITY pending events and TIMELINE_PENDING_MAX_BYTES_PER_ENTITY bytes on one entity (429 `event_entity_quota_exceeded`). ' +
  'Entity with no resolvable owner (not enrolled, deleted, wrong kind, a farm_id you have not bound) → 403; an entity you may not read gets the same 403. No token → 401. ' +
  "Farms are per account: a farm_id names the caller's own farm, bound when the caller enrols an individual with that farm_id or sets its boundary. " +
  'An event whose body has `"type": "care"` on a farm chain is inherited into the timelines of that owner\'s individuals on the farm.';

const notFound = errorResponse('no such entity, or no such event, or an event you may not see: one identical answer');

/** Timeline routes of every entity type: append, read, approve, inclusion and consistency proofs. */
export function timelineRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/{entity_type}/{entity_id}/event',
      tag: 'timeline',
      access: 'user',
      feature: 'timeline',
      summary: "Record an event on an entity's hash-chained timeline",
      description: `Body: any JSON object. ${VISIBILITY}`,
      params: EntityParams,
      body: z.record(z.string(), z.unknown()),
      responses: {
        200: { description: 'appended; prev_hash/leaf_hash link it into the chain', schema: Ok.extend({ event: EventOut }) },
        401: errorResponse('not signed in'),
        403: errorResponse('the entity has no resolvable owner, or you may not read it'),
        422: errorResponse('body is not a JSON object, is over 16 KB or nested over 32 deep'),
        429: errorResponse('too many pending contributions to this entity today, from you or from everyone together'),
      },
      handler: async ({ params, body, caller }) => s.timeline.post(caller!, params.entity_type, params.entity_id, body),
    }),
    defineRoute({
      method: 'get',
      path: '/api/{entity_type}/{entity_id}/timeline',
      tag: 'timeline',
      access: 'optional',
      feature: 'timeline',
      summary: 'Events of an entity, with chain_ok',
      description:
        "Own-chain events plus care events inherited from the enclosing farm and from the individual's care log (marked `inherited_from`, no hashes), merged by time. " +
        'Guests see public and approved events; an author also sees their own pending contributions; the owner sees all, with `seq` and `size`. `chain_ok` re-derives every hash and link of the own chain. ' +
        'A private or unpublished individual, and every farm, answers 404 (exactly like a missing one) to anyone but its owner and current grantees.',
      params: EntityParams,
      responses: {
        200: {
          description: 'the timeline',
          schema: Ok.extend({
            entity_type: z.string(),
            entity_id: z.string(),
            chain_ok: z.boolean(),
            size: z.number().int().optional(),
            broken_at: z.number().int().optional(),
            events: z.array(z.union([EventOut, InheritedOut])),
          }),
        },
        404: errorResponse('no such entity'),
      },
      handler: async ({ params, caller }) => s.timeline.timeline(caller, params.entity_type, params.entity_id),
    }),
    defineRoute({
      method: 'get',
      path: '/api/{entity_type}/{entity_id}/proof/{event_id}',
      tag: 'timeline',
      access: 'optional',
      feature: 'timeline',
      summary: 'RFC 6962 inclusion proof of one event in the chain root',
      description:
        'Leaf = SHA-256(0x00 || DAG-CBOR of the event), node = SHA-256(0x01 || left || right). `path` goes from the leaf up; `right: true` means the sibling is on the right. ' +
        '`n` and `index` are shown to the owner only; the owner may ask for an earlier tree size with `size` (e.g. an anchored one). `anchor` is null when that root is not anchored.',
      params: EventParams,
      query: z.object({ size: z.coerce.number().int().min(1).optional() }),
      responses: {
        200: {
          description: 'the proof',
          schema: Ok.extend({
            event_id: z.string(),
            leaf_hash: Hex32,
            path: z.array(AuditStep),
            root_hex: Hex32,
            n: z.number().int().optional(),
            index: z.number().int().optional(),
            anchor: AnchorOut.nullable(),
          }),
        },
        404: notFound,
        422: errorResponse('size out of range'),
      },
      handler: async ({ params, query, caller }) =>
        s.timeline.proof(caller, params.entity_type, params.entity_id, params.event_id, query.size),
    }),
    defineRoute({
      method: 'post',
      path: '/api/{entity_type}/{entity_id}/event/{event_id}/approve',
      tag: 'timeline',
      access: 'user',
      feature: 'timeline',
      summary: 'Approve a pending contribution (owner only): it is appended to the chain, public and approved',
      description:
        "The approval appends the contribution to the hash chain now, by the owner's action; its hashed body gains `_contribution` naming the author and the approval. Anchors therefore cover only owner-written or owner-approved events. Not the owner → 404, like a missing event.",
      params: EventParams,
      responses: {
        200: { description: 'approved', schema: Ok.extend({ event: EventOut }) },
        401: errorResponse('not signed in'),
        404: notFound,
      },
      handler: async ({ params, caller }) => s.timeline.approve(caller!, params.entity_type, params.entity_id, params.event_id),
    }),
    defineRoute({
      method: 'post',
      path: '/api/{entity_type}/{entity_id}/event/{event_id}/reject',
      tag: 'timeline',
      access: 'user',
      feature: 'timeline',
      summary: 'Reject a pending contribution (owner only): it never enters the chain',
      params: EventParams,
      responses: {
        200: { description: 'rejected', schema: Ok.extend({ event_id: z.string(), rejected: z.literal(true) }) },
        401: errorResponse('not signed in'),
        404: notFound,
      },
      handler: async ({ params, caller }) => s.timeline.reject(caller!, params.entity_type, params.entity_id, params.event_id),
    }),
    defineRoute({
      method: 'get',
      path: '/api/{entity_type}/{entity_id}/consistency',
      tag: 'timeline',
      access: 'user',
      feature: 'timeline',
      summary: 'RFC 9162 consistency proof between two sizes of the chain (owner only)',
      description:
        'Proves the root at `first` events is a prefix of the root at `second` (default: the current size), i.e. an anchored root was extended, never rewritten. ' +
        'Check with verifyConsistency in shared/src/evidence/merkle-consistency.ts or any RFC 9162 verifier.',
      params: EntityParams,
      query: z.object({ first: z.coerce.number().int().min(1), second: z.coerce.number().int().min(1).optional() }),
      responses: {
        200: {
          description: 'the proof',
          schema: Ok.extend({
            first: z.number().int(),
            second: z.number().int(),
            first_root: Hex32,
            second_root: Hex32,
            proof: z.array(Hex32),
          }),
        },
        401: errorResponse('not signed in'),
        404: errorResponse('no such entity, or not yours: one identical answer'),
        422: errorResponse('sizes out of range'),
      },
      handler: async ({ params, query, caller }) =>
        s.timeline.consistency(caller!, params.entity_type, params.entity_id, query.first, query.second),
    }),
  ];
}
