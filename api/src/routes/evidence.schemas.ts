import { z } from 'zod';

/**
 * The evidence bundle (`markless-evidence-bundle`, version 1) as a schema, so the OpenAPI
 * document carries its exact shape. The prose rules (what is hashed, how the verifier checks
 * each part, how JSON numbers become CBOR) are in shared/src/evidence/verify-cli/FORMAT.md.
 */
const Hex32 = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe('32 bytes, lowercase hex');

export const ChainEventSchema = z.object({
  entity_type: z.string(),
  entity_id: z.string(),
  seq: z.number().int().min(0).describe('0-based; equals the leaf index'),
  body: z
    .record(z.string(), z.unknown())
    .describe('free-form JSON object, hashed as DAG-CBOR (integers stay integers, other numbers become 64-bit floats)'),
  author_role: z.enum(['owner', 'contributor']).optional().describe('hashed; the record must be named by an `owner` event'),
  created_at: z.string().describe('ISO 8601, `Date.toISOString()` form'),
  prev_hash: Hex32.describe('leaf_hash of the previous event; 64 zeros for seq 0'),
  leaf_hash: Hex32.describe('SHA-256(0x00 || DAG-CBOR of the event without leaf_hash)'),
});

const ProofSchema = z.object({
  index: z.number().int().min(0),
  n: z.number().int().min(1).describe('tree size: the anchored number of events'),
  leaf_hash: Hex32,
  path: z.array(z.object({ sibling: Hex32, right: z.boolean() })),
  root_hex: Hex32,
});

const CheckpointSchema = z
  .object({
    type: z.literal('markless.checkpoint/v1'),
    log_id: z.string(),
    seq: z.number().int(),
    entity: z.string().describe('`<entity_type>/<entity_id>`'),
    size: z.number().int(),
    root_hex: Hex32,
    prev_checkpoint_hash: Hex32,
    created_at: z.string(),
    signer: z.string().describe('did:key of the Ed25519 key'),
    signature_hex: z.string().regex(/^[0-9a-f]{128}$/),
  })
  .describe('one signed entry of the local checkpoint log');

const AnchorSchema = z.union([
  z.object({
    backend: z.literal('local'),
    checkpoint: CheckpointSchema,
    public_key: z.string().describe('a claim only: pin the key with --trust-key'),
    entity_salt: z
      .string()
      .optional()
      .describe('opens the log\'s commitment to this entity (docs/security.md, "What the public anchor log reveals")'),
  }),
  z.object({
    backend: z.literal('cardano'),
    tx_hash: Hex32,
    tx_cbor_hex: z.string().describe('the signed transaction (metadata label 1455)'),
    entity_salt: z
      .string()
      .optional()
      .describe('opens the log\'s commitment to this entity (docs/security.md, "What the public anchor log reveals")'),
  }),
]);

export const EvidenceBundle = z
  .object({
    format: z.literal('markless-evidence-bundle'),
    version: z.literal(1),
    record_cbor_base64: z.string().describe('the canonical record bytes (DAG-CBOR)'),
    record: z.object({ cid: z.string(), hash: Hex32, record: z.unknown().optional().describe('decoded, for reading only; never trusted') }),
    images: z.record(z.string(), z.string()).describe('photo bytes (base64) by CID, for every photo the record names'),
    events: z.array(ChainEventSchema).describe("the entity's own chain, in seq order (approved events only)"),
    proof: ProofSchema.describe('inclusion of the event that names the record, under the anchored root'),
    anchor: AnchorSchema,
  })
  .describe('markless-evidence-bundle v1: everything `npm run verify` needs, offline');

export const CheckpointList = z.object({
  ok: z.literal(true),
  backend: z.enum(['local', 'cardano']),
  public_key: z.string().nullable(),
  key_fingerprint: z.string().nullable(),
  log_id: z.string().nullable(),
  checkpoints: z.array(CheckpointSchema),
  total: z.number().int(),
  next_after: z.number().int().nullable().describe('pass as `after` for the next page; null on the last'),
});

export const ConsistencyOut = z.object({
  ok: z.literal(true),
  entity: z.string(),
  first: z.number().int(),
  second: z.number().int(),
  entity_salts: z
    .object({ first: z.string(), second: z.string() })
    .describe("open the log's commitments to this entity at both sizes (the log names no entity)"),
  first_root: Hex32,
  second_root: Hex32,
  proof: z.array(Hex32).describe('RFC 9162 §2.1.4 consistency proof'),
});
