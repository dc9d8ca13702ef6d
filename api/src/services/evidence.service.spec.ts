import { describe, expect, it } from 'vitest';
import { hashLeaf, hashNode } from '../../../shared/src/evidence/merkle.js';
import { toHex } from '../../../shared/src/evidence/bytes.js';
import { checkInclusion, estimateFee, provenanceDemo, type FeeQuery } from './evidence.service.js';

const fee = (q: Partial<FeeQuery>) =>
  estimateFee({ species: 'cattle', value_usd: 0, lifecycle_events: 7, anchor_tier: 'batch_daily', demand_factor: 1, lamp_usd: 0, ...q });

/** A four-leaf tree by hand: leaves 0..3 from one byte each, and the root above them. */
function fourLeaves() {
  const leaves = [0, 1, 2, 3].map((k) => hashLeaf(new Uint8Array([k])));
  const left = hashNode(leaves[0]!, leaves[1]!);
  const right = hashNode(leaves[2]!, leaves[3]!);
  return { leaves, left, right, root: toHex(hashNode(left, right)) };
}

/** The 422 an input error becomes, naming its field (as the other service specs match a rejection). */
const invalid = (field: string) => expect.objectContaining({ status: 422, params: expect.objectContaining({ field }) });

describe('the fee estimate', () => {
  it('is the documented formula: base × species factor plus value × rate, times demand, plus anchoring per event and the lamp', () => {
    // pig 0.6: (0.5 × 0.6 + 1000 × 0.002) × 2 = 4.6; per_event 0.08 × 10 = 0.8; lamp 1.25.
    const r = fee({ species: 'Pig', value_usd: 1000, demand_factor: 2, lifecycle_events: 10, anchor_tier: 'per_event', lamp_usd: 1.25 });
    expect(r.breakdown).toEqual({
      base_usd: 0.5,
      species_factor: 0.6,
      value_component_usd: 2,
      service_usd: 4.6,
      anchoring_usd: 0.8,
      lamp_usd: 1.25,
    });
    expect(r.fee_usd).toBe(6.65);
    expect(r.currency).toBe('USD');
  });

  it('prices a species it does not list as cattle, and a server-only chain at no anchoring cost', () => {
    expect(fee({ species: 'alpaca' }).breakdown.species_factor).toBe(1);
    expect(fee({ anchor_tier: 'none', lifecycle_events: 1000 }).breakdown.anchoring_usd).toBe(0);
    // batch_daily: 7 events × 0.0002, rounded to four decimals.
    expect(fee({}).breakdown.anchoring_usd).toBe(0.0014);
  });
});

describe('checking an inclusion proof', () => {
  it('verifies a leaf of a four-leaf tree from its data, and says false (not an error) for a wrong root', () => {
    const t = fourLeaves();
    const path = [
      { sibling: toHex(t.leaves[3]!), right: true },
      { sibling: toHex(t.left), right: false },
    ];
    expect(checkInclusion({ record_cbor_hex: '02', proof_path: path, root_hex: t.root })).toEqual({ ok: true, verified: true });
    expect(checkInclusion({ record_cbor_hex: '02', proof_path: path, root_hex: 'ab'.repeat(32) }).verified).toBe(false);
    expect(checkInclusion({ record_cbor_hex: '03', proof_path: path, root_hex: t.root }).verified).toBe(false);
  });

  it('refuses an interior node passed off as a leaf: a bare hash needs its index and the tree size', () => {
    const t = fourLeaves();
    // H(left ‖ right) is the root: with `left` as the "leaf" and one step, a positionless check would pass.
    const forged = { leaf_hex: toHex(t.left), proof_path: [{ sibling: toHex(t.right), right: true }], root_hex: t.root };
    expect(() => checkInclusion(forged)).toThrow(invalid('index'));
    // With a position, the path must have the length RFC 9162 derives from it: one step is too short.
    expect(checkInclusion({ ...forged, index: 0, tree_size: 4 }).verified).toBe(false);
    // The real leaf at that position, with its whole path, verifies.
    const leaf = {
      leaf_hex: toHex(t.leaves[0]!),
      proof_path: [
        { sibling: toHex(t.leaves[1]!), right: true },
        { sibling: toHex(t.right), right: true },
      ],
      root_hex: t.root,
    };
    expect(checkInclusion({ ...leaf, index: 0, tree_size: 4 }).verified).toBe(true);
    expect(checkInclusion({ ...leaf, index: 1, tree_size: 4 }).verified).toBe(false);
  });

  it('answers a 422 naming the field for both or neither leaf forms, a half position, an index past the end, and bad hex', () => {
    const t = fourLeaves();
    const base = { proof_path: [], root_hex: t.root };
    expect(() => checkInclusion(base)).toThrow(invalid('record_cbor_hex'));
    expect(() => checkInclusion({ ...base, record_cbor_hex: '00', leaf_hex: toHex(t.leaves[0]!) })).toThrow(invalid('record_cbor_hex'));
    expect(() => checkInclusion({ ...base, record_cbor_hex: '00', index: 0 })).toThrow(invalid('tree_size'));
    expect(() => checkInclusion({ ...base, record_cbor_hex: '00', index: 4, tree_size: 4 })).toThrow(invalid('index'));
    expect(() => checkInclusion({ ...base, record_cbor_hex: '00', salt_hex: 'ab' })).toThrow(invalid('body'));
  });
});

describe('the provenance demo', () => {
  it('is a six-step lineage on one hash chain whose proof of the meat pack checks as its own verify_with says', () => {
    const demo = provenanceDemo();
    expect(demo.lineage.map((e) => (e.body as { stage: string }).stage)).toEqual([
      'animal/demo-cow-0001',
      'animal/demo-cow-0001',
      'animal/demo-cow-0001',
      'carcass/demo-carcass-0001',
      'cut/demo-cut-0001-03',
      'pack/demo-pack-0001-03-07',
    ]);
    for (const [i, e] of demo.lineage.entries()) if (i > 0) expect(e.prev_hash).toBe(demo.lineage[i - 1]!.leaf_hash);
    expect(checkInclusion(demo.verify_with.body)).toEqual({ ok: true, verified: true });
    // One byte of the record changed: the same proof no longer reaches the root.
    const body = demo.verify_with.body;
    const flipped = body.record_cbor_hex.slice(0, -2) + (body.record_cbor_hex.endsWith('00') ? '01' : '00');
    expect(checkInclusion({ ...body, record_cbor_hex: flipped }).verified).toBe(false);
    // The demo is fixed: two calls give the same root.
    expect(provenanceDemo().proof.root_hex).toBe(demo.proof.root_hex);
  });
});
