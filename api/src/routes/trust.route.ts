import { z } from 'zod';
import { defineRoute, withAnimalMirror, type RouteDef } from '../http/route.js';
import {
  FEE_BASE_USD,
  FEE_VALUE_RATE,
  SPECIES_FACTORS,
  TRUST_TIERS,
  checkInclusion,
  estimateFee,
  provenanceDemo,
  type TrustTier,
} from '../services/evidence.service.js';
import { Ok, errorResponse } from './schemas.js';

const Hex = z.string().regex(/^(?:[0-9a-fA-F]{2})*$/, 'even-length hex');
const Hex32 = z.string().regex(/^[0-9a-fA-F]{64}$/, '32 bytes of hex');
const TIER_NAMES = TRUST_TIERS.map((t) => t.tier) as [TrustTier, ...TrustTier[]];

const VerifyBody = z.object({
  record_cbor_hex: Hex.optional().describe("the leaf data (e.g. an event's canonical DAG-CBOR); hashed as SHA-256(0x00 || [salt] || data)"),
  leaf_hex: Hex32.optional().describe(
    'the leaf hash itself, instead of record_cbor_hex; then index and tree_size are required, so an interior node cannot pass as a leaf',
  ),
  index: z
    .number()
    .int()
    .min(0)
    .max(2 ** 40)
    .optional()
    .describe('0-based leaf index (RFC 9162 §2.1.3.2); with tree_size it fixes the side of every path step'),
  tree_size: z
    .number()
    .int()
    .min(1)
    .max(2 ** 40)
    .optional()
    .describe('number of leaves under root_hex'),
  proof_path: z.array(z.object({ sibling: Hex32, right: z.boolean() })).max(64),
  root_hex: Hex32,
  salt_hex: Hex32.optional().describe('32-byte per-leaf salt, only with record_cbor_hex'),
});

const FeeQuery = z.object({
  species: z.string().trim().min(1).max(50).default('cattle'),
  value_usd: z.coerce.number().min(0).max(1e9).default(0.0),
  lifecycle_events: z.coerce.number().int().min(0).max(100_000).default(7),
  anchor_tier: z.enum(TIER_NAMES).default('batch_daily'),
  demand_factor: z.coerce.number().min(0).max(100).default(1.0),
  lamp_usd: z.coerce.number().min(0).max(1e6).default(0.0),
});

const FEE_DOC =
  `fee_usd = (${FEE_BASE_USD} × species_factor + value_usd × ${FEE_VALUE_RATE}) × demand_factor + lifecycle_events × cost_per_event_usd(anchor_tier) + lamp_usd. ` +
  `species_factor: ${Object.entries(SPECIES_FACTORS)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}; any other species 1. ` +
  `cost_per_event_usd: ${TRUST_TIERS.map((t) => `${t.tier} ${t.cost_per_event_usd}`).join(', ')}. ` +
  'lamp_usd is an extra per-animal cost passed through unchanged. Defaults: species cattle, value_usd 0, lifecycle_events 7, anchor_tier batch_daily, demand_factor 1, lamp_usd 0. Rounded to 4 decimals.';

function publicRoutes(): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/animal/trust/verify-inclusion',
      tag: 'animals',
      access: 'public',
      feature: 'trust',
      summary: 'Check an RFC 6962 inclusion proof',
      description:
        "Give exactly one of record_cbor_hex or leaf_hex. With leaf_hex, index and tree_size are required and the path's sides and length must be those RFC 9162 §2.1.3.2 derives from them. Nothing is stored.",
      body: VerifyBody,
      responses: {
        200: { description: 'whether the path leads from the leaf to root_hex', schema: Ok.extend({ verified: z.boolean() }) },
        422: errorResponse('malformed hex, both or neither of record_cbor_hex and leaf_hex, or leaf_hex without index and tree_size'),
      },
      handler: async ({ body }) => checkInclusion(body),
    }),
    defineRoute({
      method: 'get',
      path: '/api/animal/trust/tiers',
      tag: 'animals',
      access: 'public',
      feature: 'trust',
      summary: 'Trust table by anchor tier',
      responses: { 200: { description: 'tiers, weakest first', schema: Ok.extend({ tiers: z.array(z.record(z.string(), z.unknown())) }) } },
      handler: async () => ({ ok: true, tiers: TRUST_TIERS }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/animal/fee/estimate',
      tag: 'animals',
      access: 'public',
      feature: 'trust',
      summary: 'Fee estimate for tracing one animal',
      description: FEE_DOC,
      query: FeeQuery,
      responses: {
        200: {
          description: 'the estimate and its breakdown',
          schema: Ok.extend({
            fee_usd: z.number(),
            currency: z.literal('USD'),
            breakdown: z.record(z.string(), z.number()),
            input: z.record(z.string(), z.unknown()),
          }),
        },
        422: errorResponse('a query value out of range'),
      },
      handler: async ({ query }) => estimateFee(query),
    }),
    defineRoute({
      method: 'get',
      path: '/api/animal/provenance/demo',
      tag: 'animals',
      access: 'public',
      feature: 'trust',
      summary: 'Sample lineage (cow to meat pack) with a real inclusion proof',
      description: 'POST `verify_with.body` to /api/animal/trust/verify-inclusion and it answers verified: true.',
      responses: {
        200: {
          description: 'the lineage and the proof of its last step',
          schema: Ok.extend({
            lineage: z.array(z.record(z.string(), z.unknown())),
            proof: z.record(z.string(), z.unknown()),
            verify_with: z.record(z.string(), z.unknown()),
          }),
        },
      },
      handler: async () => provenanceDemo(),
    }),
  ];
}

/** The public trust helpers, plus their `/animal/...` mirror (same behaviour, hidden from docs). */
export function trustRoutes(): RouteDef[] {
  return withAnimalMirror(publicRoutes());
}
