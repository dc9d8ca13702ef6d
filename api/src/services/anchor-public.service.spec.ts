import { describe, expect, it, vi } from 'vitest';
import { appendEvent, chainRoot } from '../../../shared/src/evidence/chain.js';
import type { SignedCheckpoint } from '../../../shared/src/evidence/checkpoint.js';
import { keyFingerprint, publicKeyToDidKey } from '../../../shared/src/evidence/did-key.js';
import { consistencyProof } from '../../../shared/src/evidence/merkle-consistency.js';
import { fromHex } from '../../../shared/src/evidence/bytes.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { DescribedAnchorRow } from '../../../shared/src/repos/anchor-public.repo.js';
import type { StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { anchoringFacts, createAnchorPublicService, describeAnchor, type AnchorPublicDeps } from './anchor-public.service.js';

const db = strictMock<Queryable>({}, 'db');
const TREE = '33333333-3333-4333-8333-333333333333';
const KEY = publicKeyToDidKey(new Uint8Array(32).fill(7));
const facts = anchoringFacts({ anchor: { kind: 'local', publicKey: KEY }, config: { CODE_PREFIX: 'MKL' } });
const chain: StoredEvent[] = [1, 2, 3]
  .reduce<ReturnType<typeof appendEvent>[]>(
    (c, n) => [...c, appendEvent(c, { entity_type: 'tree', entity_id: TREE, body: { n }, created_at: new Date(Date.UTC(2026, 10, n)) })],
    [],
  )
  .map((e, i) => ({ ...e, event_id: `e${i}`, owner_id: 'o', author_id: 'o', visibility: 'public', approval: 'approved' }));
const cp = (seq: number) => ({ seq, signer: KEY }) as unknown as SignedCheckpoint;

function service(over: Partial<Omit<AnchorPublicDeps, 'anchors'>> & { anchors?: Partial<AnchorPublicDeps['anchors']> } = {}) {
  const { anchors, ...rest } = over;
  return createAnchorPublicService({
    db,
    anchors: strictMock<AnchorPublicDeps['anchors']>(anchors ?? {}, 'anchor public repo'),
    loadChain: strictMock<{ f: AnchorPublicDeps['loadChain'] }>({}, 'chain').f,
    commitmentFor: strictMock<{ f: AnchorPublicDeps['commitmentFor'] }>({}, 'secret').f,
    facts,
    ...rest,
  });
}

describe('anchoring facts and the checkpoint log', () => {
  it('names the service key, its fingerprint and a log id only for the local backend', () => {
    expect(facts).toEqual({
      backend: 'local',
      public_key: KEY,
      key_fingerprint: keyFingerprint(KEY),
      log_id: 'markless/MKL',
      checkpoints: '/api/anchor/checkpoints',
    });
    expect(anchoringFacts({ anchor: { kind: 'cardano', publicKey: null }, config: { CODE_PREFIX: 'MKL' } })).toMatchObject({
      key_fingerprint: null,
      log_id: null,
    });
  });

  it('pages the log: a full page points at the next, a short one ends it', async () => {
    const checkpointsAfter = vi.fn(async (_q: Queryable, after: number, limit: number) =>
      [0, 1, 2]
        .filter((s) => s > after)
        .slice(0, limit)
        .map(cp),
    );
    const s = service({ anchors: { checkpointsAfter, checkpointCount: async () => 3 } });
    const first = await s.checkpoints(-1, 2);
    expect(first).toMatchObject({ ok: true, backend: 'local', log_id: 'markless/MKL', total: 3, next_after: 1 });
    expect(first).not.toHaveProperty('checkpoints', '/api/anchor/checkpoints');
    expect(first.checkpoints.map((c) => c.seq)).toEqual([0, 1]);
    expect((await s.checkpoints(1, 2)).next_after).toBeNull();
  });
});

describe('public consistency proofs', () => {
  it('answers a farm, a malformed id or sizes out of order with 404 before reading anything', async () => {
    const s = service();
    for (const [type, id, first, second] of [
      ['farm', TREE, 1, 2],
      ['tree', 'vuon', 1, 2],
      ['tree', TREE, 0, 2],
      ['tree', TREE, 3, 2],
    ] as const)
      await expect(s.consistency(type, id, first, second)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('answers an unpublished individual exactly as an unanchored size: 404, reading no anchors for it', async () => {
    const unpublished = await service({ anchors: { isPublished: async () => false } })
      .consistency('tree', TREE, 1, 2)
      .catch((e: unknown) => e);
    const unanchored = await service({
      anchors: { isPublished: async () => true, anchoredRoots: async () => [{ size: 2, root_hex: 'r2' }] },
      loadChain: async () => chain,
    })
      .consistency('tree', TREE, 1, 2)
      .catch((e: unknown) => e);
    const tooLong = await service({
      anchors: { isPublished: async () => true, anchoredRoots: async () => [1, 4].map((size) => ({ size, root_hex: 'r' })) },
      loadChain: async () => chain,
    })
      .consistency('tree', TREE, 1, 4)
      .catch((e: unknown) => e);
    expect(unpublished).toMatchObject({ status: 404, code: 'not_found' });
    expect(unanchored).toEqual(unpublished);
    expect(tooLong).toEqual(unpublished);
  });

  it('proves two anchored roots of a published tree consistent, opening both commitments', async () => {
    const isPublished = vi.fn(async () => true);
    const commitmentFor = vi.fn(async (_q: Queryable, _t: string, _i: string, n: number) => ({
      entity: '',
      salt: `salt${n}`,
      commitment: '',
    }));
    const s = service({
      anchors: { isPublished, anchoredRoots: async () => [1, 3].map((size) => ({ size, root_hex: `r${size}` })) },
      loadChain: async () => chain,
      commitmentFor,
    });
    const out = await s.consistency('tree', TREE.toUpperCase(), 1, 3);
    expect(isPublished).toHaveBeenCalledWith(db, TREE, 'tree');
    expect(commitmentFor).toHaveBeenCalledWith(db, 'tree', TREE, 3, 'r3');
    expect(out).toEqual({
      ok: true,
      entity: `tree/${TREE}`,
      entity_salts: { first: 'salt1', second: 'salt3' },
      first: 1,
      second: 3,
      first_root: chainRoot(chain.slice(0, 1)),
      second_root: chainRoot(chain),
      proof: consistencyProof(
        chain.map((e) => fromHex(e.leaf_hash, 32)),
        1,
      ),
    });
  });
});

describe('an anchor in words', () => {
  const row = (over: Partial<DescribedAnchorRow>): DescribedAnchorRow => ({
    backend: 'local',
    status: 'confirmed',
    size: 3,
    root_hex: 'ab',
    tx_hash: null,
    explorer_url: null,
    confirmations: 0,
    checkpoint_seq: 1,
    checkpoint: cp(1),
    ...over,
  });

  it('says a local anchor is only the server’s own key, naming its fingerprint', () => {
    const d = describeAnchor(row({}));
    expect(d).toMatchObject({ public_key: KEY, key_fingerprint: keyFingerprint(KEY), checkpoint_seq: 1 });
    expect(d.text.en).toContain(`fingerprint ${keyFingerprint(KEY)}`);
    expect(d.text.en).toContain('not a public blockchain');
  });

  it('tells a confirmed Cardano anchor from a submitted one and from a failure', () => {
    const cardano = { backend: 'cardano' as const, tx_hash: 'tx1', checkpoint: null, checkpoint_seq: null, confirmations: 12 };
    expect(describeAnchor(row(cardano)).text.en).toBe("Cardano transaction tx1 (12 confirmations) carries the chain's Merkle root.");
    expect(describeAnchor(row({ ...cardano, status: 'submitted' })).text.en).toContain('do not treat it as anchored');
    expect(describeAnchor(row({ status: 'failed' })).text.en).toBe('The last anchoring failed; this chain is not anchored.');
    expect(describeAnchor(row(cardano)).public_key).toBeNull();
  });
});
