/**
 * The public evidence helpers of the animal column (spec section 4): inclusion-proof checking,
 * the trust table by anchor tier, the fee estimate and a sample cow-to-meat-pack lineage with a
 * real proof. Pure: no database, no account, nothing about the caller kept.
 */
import { EvidenceFormatError, toHex } from '../../../shared/src/evidence/bytes.js';
import { appendEvent, canonicalEventBytes, eventInclusionProof, type ChainEvent } from '../../../shared/src/evidence/chain.js';
import { verifyInclusion, type AuditStep } from '../../../shared/src/evidence/merkle.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';

/** Anchor tiers, weakest first. `cost_per_event_usd` feeds the fee estimate. */
export const TRUST_TIERS = [
  {
    tier: 'none',
    level: 0,
    anchor: 'none',
    verifiable_by: 'nobody but the service',
    latency: 'immediate',
    cost_per_event_usd: 0,
    note: 'Events are hash-chained on the server only; a reader must trust the service.',
  },
  {
    tier: 'local_checkpoint',
    level: 1,
    anchor: 'signed checkpoint log (Ed25519 service key)',
    verifiable_by: 'anyone holding the service public key',
    latency: 'immediate',
    cost_per_event_usd: 0,
    note: 'Tamper-evident: any rewrite breaks the signed, linked log, but the key holder could fork it.',
  },
  {
    tier: 'batch_daily',
    level: 2,
    anchor: 'one Cardano transaction per day (metadata label 1455)',
    verifiable_by: 'anyone, with a public Cardano explorer',
    latency: 'up to 24 hours',
    cost_per_event_usd: 0.0002,
    note: 'Roots are anchored in a daily batch; the chain fee is shared by every entity in the batch.',
  },
  {
    tier: 'per_event',
    level: 3,
    anchor: 'one Cardano transaction per anchoring (metadata label 1455)',
    verifiable_by: 'anyone, with a public Cardano explorer',
    latency: 'minutes',
    cost_per_event_usd: 0.08,
    note: 'Each anchoring is its own transaction: fastest public evidence, highest cost.',
  },
] as const;
export type TrustTier = (typeof TRUST_TIERS)[number]['tier'];

/** Relative handling cost per head: larger animals carry more lifecycle records. */
export const SPECIES_FACTORS: Record<string, number> = {
  cattle: 1,
  buffalo: 1,
  horse: 1,
  pig: 0.6,
  goat: 0.5,
  sheep: 0.5,
  poultry: 0.1,
  chicken: 0.1,
  duck: 0.1,
};
export const FEE_BASE_USD = 0.5;
export const FEE_VALUE_RATE = 0.002;

/** Query of the fee estimate, with the spec's defaults applied. */
export interface FeeQuery {
  species: string;
  value_usd: number;
  lifecycle_events: number;
  anchor_tier: TrustTier;
  demand_factor: number;
  lamp_usd: number;
}

/** fee = (base × species_factor + value × rate) × demand_factor + lifecycle_events × tier cost + lamp_usd */
export function estimateFee(q: FeeQuery) {
  const speciesFactor = SPECIES_FACTORS[q.species.toLowerCase()] ?? 1;
  const tier = TRUST_TIERS.find((t) => t.tier === q.anchor_tier)!;
  const service = (FEE_BASE_USD * speciesFactor + q.value_usd * FEE_VALUE_RATE) * q.demand_factor;
  const anchoring = q.lifecycle_events * tier.cost_per_event_usd;
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    ok: true as const,
    currency: 'USD',
    input: q,
    breakdown: {
      base_usd: FEE_BASE_USD,
      species_factor: speciesFactor,
      value_component_usd: round(q.value_usd * FEE_VALUE_RATE),
      service_usd: round(service),
      anchoring_usd: round(anchoring),
      lamp_usd: q.lamp_usd,
    },
    fee_usd: round(service + anchoring + q.lamp_usd),
  };
}

/** Body of verify-inclusion: exactly one of record_cbor_hex (leaf data) or leaf_hex. */
export interface VerifyInclusionBody {
  record_cbor_hex?: string;
  leaf_hex?: string;
  proof_path: AuditStep[];
  root_hex: string;
  salt_hex?: string;
  index?: number;
  tree_size?: number;
}

/** Checks an RFC 6962 inclusion proof; malformed input is a 422, a wrong proof `verified: false`. */
export function checkInclusion(b: VerifyInclusionBody): { ok: true; verified: boolean } {
  if ((b.record_cbor_hex === undefined) === (b.leaf_hex === undefined))
    throw ERRORS.validation('record_cbor_hex', 'give exactly one of record_cbor_hex or leaf_hex');
  // A bare hash could be an interior node: H(0x01‖L4‖L5) with the path minus its first step
  // "verifies". The leaf's position (RFC 9162 §2.1.3.2) fixes every side and the path length.
  if (b.leaf_hex !== undefined && (b.index === undefined || b.tree_size === undefined))
    throw ERRORS.validation('index', 'leaf_hex needs index and tree_size');
  if ((b.index === undefined) !== (b.tree_size === undefined)) throw ERRORS.validation('tree_size', 'give index and tree_size together');
  if (b.index !== undefined && b.tree_size !== undefined && b.index >= b.tree_size)
    throw ERRORS.validation('index', 'index must be below tree_size');
  try {
    const verified = verifyInclusion({
      ...(b.leaf_hex !== undefined
        ? { leafHex: b.leaf_hex.toLowerCase() }
        : { dataBytes: new Uint8Array(Buffer.from(b.record_cbor_hex!, 'hex')) }),
      ...(b.salt_hex !== undefined ? { saltHex: b.salt_hex.toLowerCase() } : {}),
      path: b.proof_path.map((s) => ({ sibling: s.sibling.toLowerCase(), right: s.right })),
      rootHex: b.root_hex.toLowerCase(),
      ...(b.index !== undefined && b.tree_size !== undefined ? { index: b.index, size: b.tree_size } : {}),
    });
    return { ok: true, verified };
  } catch (err) {
    if (err instanceof EvidenceFormatError) throw ERRORS.validation('body', err.message);
    throw err;
  }
}

const DEMO_STEPS: Array<[string, Record<string, unknown>]> = [
  ['animal/demo-cow-0001', { type: 'birth', species: 'cattle', breed: 'Lai Sind', farm_id: 'demo-farm' }],
  ['animal/demo-cow-0001', { type: 'care', product: 'FMD vaccine', withdrawal_days: 0 }],
  ['animal/demo-cow-0001', { type: 'transfer', to: 'demo-abattoir', transport_hours: 3 }],
  ['carcass/demo-carcass-0001', { type: 'slaughter', from: 'animal/demo-cow-0001', inspected: true }],
  ['cut/demo-cut-0001-03', { type: 'cut', from: 'carcass/demo-carcass-0001', part: 'tenderloin', weight_kg: 2.4 }],
  ['pack/demo-pack-0001-03-07', { type: 'pack', from: 'cut/demo-cut-0001-03', weight_kg: 0.5, best_before: '2026-07-20' }],
];

/** A fixed lineage, hash-chained on one demo chain, with a real proof of the meat pack event. */
export function provenanceDemo() {
  const chain: ChainEvent[] = [];
  DEMO_STEPS.forEach(([stage, body], i) => {
    chain.push(
      appendEvent(chain, {
        entity_type: 'lineage',
        entity_id: 'demo-cow-0001',
        body: { stage, ...body },
        created_at: new Date(Date.UTC(2026, 6, 1 + i, 8)),
      }),
    );
  });
  const last = chain.at(-1)!;
  const p = eventInclusionProof(chain, last.seq);
  const body = {
    record_cbor_hex: toHex(canonicalEventBytes(last)),
    proof_path: p.path,
    root_hex: p.root_hex,
    index: p.index,
    tree_size: p.n,
  };
  return {
    ok: true as const,
    description:
      'Sample lineage: cow → carcass → cut → meat pack, each step an event of one hash chain. The proof shows the pack event is in the chain root.',
    lineage: chain,
    proof: { n: p.n, leaf_hex: p.leaf_hash, ...body },
    verify_with: { method: 'POST', path: '/api/animal/trust/verify-inclusion', body },
  };
}
