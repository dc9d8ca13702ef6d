import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { toHex } from '../../shared/src/evidence/bytes.js';
import { hashLeaf, hashNode, inclusionProof, merkleRoot } from '../../shared/src/evidence/merkle.js';

describe('public trust helpers (no token) and their /animal mirror', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode: 'embedded' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('serves a demo lineage whose proof verify-inclusion accepts, and rejects after a bit flip', async () => {
    const demo = await api(app.url, 'GET', '/api/animal/provenance/demo');
    expect(demo.status).toBe(200);
    expect(demo.json.lineage.map((e: any) => e.body.type)).toEqual(['birth', 'care', 'transfer', 'slaughter', 'cut', 'pack']);
    const ok = await api(app.url, 'POST', demo.json.verify_with.path, { json: demo.json.verify_with.body });
    expect(ok.json).toEqual({ ok: true, verified: true });
    const body = demo.json.verify_with.body;
    const flippedData = { ...body, record_cbor_hex: body.record_cbor_hex.slice(0, -1) + (body.record_cbor_hex.endsWith('0') ? '1' : '0') };
    expect((await api(app.url, 'POST', '/api/animal/trust/verify-inclusion', { json: flippedData })).json).toEqual({
      ok: true,
      verified: false,
    });
    const byLeaf = await api(app.url, 'POST', '/animal/trust/verify-inclusion', {
      json: {
        leaf_hex: demo.json.proof.leaf_hex,
        proof_path: body.proof_path,
        root_hex: body.root_hex,
        index: demo.json.proof.index,
        tree_size: demo.json.proof.n,
      },
    });
    expect(byLeaf.json).toEqual({ ok: true, verified: true });
  });

  it('refuses an interior node passed off as a leaf (H(0x01‖L4‖L5) with the path minus its first step)', async () => {
    const leaves = Array.from({ length: 6 }, (_, i) => hashLeaf(new TextEncoder().encode(`event ${i}`)));
    const root = toHex(merkleRoot(leaves));
    const path = inclusionProof(leaves, 4);
    const interior = toHex(hashNode(leaves[4]!, leaves[5]!));
    const post = (json: Record<string, unknown>) => api(app.url, 'POST', '/api/animal/trust/verify-inclusion', { json });
    const genuine = await post({ leaf_hex: toHex(leaves[4]!), proof_path: path, root_hex: root, index: 4, tree_size: 6 });
    expect(genuine.json).toEqual({ ok: true, verified: true });
    // Without a position the bare hash is refused outright.
    const noPosition = await post({ leaf_hex: interior, proof_path: path.slice(1), root_hex: root });
    expect(noPosition.status).toBe(422);
    expect(noPosition.json.detail).toMatch(/index/);
    // With the anchored size, no index makes the shortened path's sides fit.
    for (const index of [4, 5]) {
      expect((await post({ leaf_hex: interior, proof_path: path.slice(1), root_hex: root, index, tree_size: 6 })).json).toEqual({
        ok: true,
        verified: false,
      });
    }
    expect((await post({ leaf_hex: interior, proof_path: path.slice(1), root_hex: root, index: 6, tree_size: 6 })).status).toBe(422);
  });

  it('refuses malformed verify-inclusion bodies with 422', async () => {
    const both = await api(app.url, 'POST', '/api/animal/trust/verify-inclusion', {
      json: { leaf_hex: 'a'.repeat(64), record_cbor_hex: '00', proof_path: [], root_hex: 'a'.repeat(64) },
    });
    expect(both.status).toBe(422);
    const badHex = await api(app.url, 'POST', '/api/animal/trust/verify-inclusion', {
      json: { leaf_hex: 'xyz', proof_path: [], root_hex: 'a'.repeat(64) },
    });
    expect(badHex.status).toBe(422);
    const saltWithLeaf = await api(app.url, 'POST', '/api/animal/trust/verify-inclusion', {
      json: { leaf_hex: 'a'.repeat(64), salt_hex: 'b'.repeat(64), proof_path: [], root_hex: 'a'.repeat(64) },
    });
    expect(saltWithLeaf.status).toBe(422);
  });

  it('estimates fees with the spec defaults and the documented formula', async () => {
    const d = await api(app.url, 'GET', '/api/animal/fee/estimate');
    expect(d.json.input).toEqual({
      species: 'cattle',
      value_usd: 0,
      lifecycle_events: 7,
      anchor_tier: 'batch_daily',
      demand_factor: 1,
      lamp_usd: 0,
    });
    // (0.5 × 1 + 0 × 0.002) × 1 + 7 × 0.0002 + 0
    expect(d.json.fee_usd).toBeCloseTo(0.5014, 6);
    const q = await api(
      app.url,
      'GET',
      '/animal/fee/estimate?species=pig&value_usd=200&lifecycle_events=10&anchor_tier=per_event&demand_factor=2&lamp_usd=1.5',
    );
    // (0.5 × 0.6 + 200 × 0.002) × 2 + 10 × 0.08 + 1.5
    expect(q.json.fee_usd).toBeCloseTo(3.7, 6);
    expect((await api(app.url, 'GET', '/api/animal/fee/estimate?anchor_tier=gold')).status).toBe(422);
  });

  it('lists the trust tiers and keeps the mirror out of the docs', async () => {
    const t = await api(app.url, 'GET', '/api/animal/trust/tiers');
    expect(t.json.tiers.map((x: any) => x.tier)).toEqual(['none', 'local_checkpoint', 'batch_daily', 'per_event']);
    expect((await api(app.url, 'GET', '/animal/trust/tiers')).json).toEqual(t.json);
    const doc = await api(app.url, 'GET', '/openapi.json');
    expect(Object.keys(doc.json.paths)).toContain('/api/animal/trust/tiers');
    expect(Object.keys(doc.json.paths)).not.toContain('/animal/trust/tiers');
    expect(doc.json.paths['/api/animal/fee/estimate'].get.description).toContain('fee_usd =');
  });
});
