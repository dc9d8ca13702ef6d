import * as dagCbor from '@ipld/dag-cbor';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  GENESIS_PREV_HASH,
  appendEvent,
  canonicalEventBytes,
  chainRoot,
  eventInclusionProof,
  verifyChain,
  type ChainEvent,
  type EventContent,
} from './chain.js';
import { merkleRootHex, verifyInclusion } from './merkle.js';

function buildChain(n: number, entity_id = 'tree-42'): ChainEvent[] {
  const chain: ChainEvent[] = [];
  for (let i = 0; i < n; i++) {
    const content: EventContent = {
      entity_type: 'tree',
      entity_id,
      body: { kind: i === 0 ? 'enrol' : 'care', note: `bón phân lần ${i}`, dose_ml: 12.5 * i, tags: ['a', i] },
      created_at: new Date(Date.UTC(2026, 6, 1, 8, i)).toISOString(),
      ...(i % 2 === 1 ? { author_role: 'owner' } : {}),
    };
    chain.push(appendEvent(chain, content));
  }
  return chain;
}

describe('event hashing format', () => {
  it('is the RFC 6962 leaf hash of the documented DAG-CBOR map', () => {
    const [first] = buildChain(1);
    const e = first as ChainEvent;
    const expectedBytes = dagCbor.encode({
      entity_type: 'tree',
      entity_id: 'tree-42',
      seq: 0,
      body: e.body,
      created_at: '2026-07-01T08:00:00.000Z',
      prev_hash: GENESIS_PREV_HASH,
    });
    expect(Buffer.from(canonicalEventBytes(e))).toEqual(Buffer.from(expectedBytes));
    const leaf = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), expectedBytes]))
      .digest('hex');
    expect(e.leaf_hash).toBe(leaf);
    expect(e.prev_hash).toBe('0'.repeat(64));
  });

  it('covers author_role when present', () => {
    const [, second] = buildChain(2);
    const e = second as ChainEvent;
    const { author_role: _drop, ...withoutRole } = e;
    expect(canonicalEventBytes(withoutRole)).not.toEqual(canonicalEventBytes(e));
  });

  it.each([
    ['a Date inside the body', { when: new Date() }],
    ['undefined inside the body', { x: undefined }],
    ['NaN', { x: Number.NaN }],
    ['an unsafe integer', { x: 2 ** 60 }],
    ['the key __proto__', JSON.parse('{"__proto__": 1}')],
  ])('refuses %s', (_what, body) => {
    expect(() => appendEvent([], { entity_type: 'tree', entity_id: 't', body, created_at: '2026-07-01T00:00:00Z' })).toThrow();
  });
});

describe('verifyChain', () => {
  it('accepts a chain built by appendEvent, and its JSON round trip', () => {
    const chain = buildChain(7);
    expect(verifyChain(chain)).toEqual({ ok: true });
    expect(verifyChain(JSON.parse(JSON.stringify(chain)) as ChainEvent[])).toEqual({ ok: true });
    expect(chain.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    chain.slice(1).forEach((e, i) => expect(e.prev_hash).toBe(chain[i]?.leaf_hash));
  });

  it('reads -0 as 0 so the JSON round trip keeps the hash', () => {
    const e = appendEvent([], { entity_type: 'tree', entity_id: 't', body: { x: -0 }, created_at: '2026-07-01T00:00:00Z' });
    expect(verifyChain(JSON.parse(JSON.stringify([e])) as ChainEvent[]).ok).toBe(true);
  });

  it('points at an event whose body was edited', () => {
    const chain = buildChain(5);
    const tampered = chain.map((e) => (e.seq === 2 ? { ...e, body: { ...e.body, dose_ml: 999 } } : e));
    expect(verifyChain(tampered)).toMatchObject({ ok: false, broken_at: 2, reason: expect.stringMatching(/leaf_hash/) });
  });

  it('catches a rewritten event even when its own leaf_hash was recomputed', () => {
    const chain = buildChain(5);
    const forged = appendEvent(chain.slice(0, 2), {
      entity_type: 'tree',
      entity_id: 'tree-42',
      body: { kind: 'fake' },
      created_at: '2026-07-02T00:00:00Z',
    });
    const tampered = [...chain.slice(0, 2), forged, ...chain.slice(3)];
    expect(verifyChain(tampered)).toMatchObject({ ok: false, broken_at: 3, reason: expect.stringMatching(/prev_hash/) });
  });

  it('catches removed, reordered and foreign events', () => {
    const chain = buildChain(5);
    expect(verifyChain([...chain.slice(0, 2), ...chain.slice(3)])).toMatchObject({ ok: false, broken_at: 2 });
    expect(verifyChain([chain[1], chain[0]] as ChainEvent[])).toMatchObject({ ok: false, broken_at: 0 });
    const other = buildChain(2, 'tree-43');
    expect(verifyChain([chain[0], other[1]] as ChainEvent[])).toMatchObject({ ok: false, broken_at: 1 });
  });

  it('refuses to append an event of another entity', () => {
    expect(() => appendEvent(buildChain(1), { entity_type: 'tree', entity_id: 'other', body: {}, created_at: new Date() })).toThrow(
      /another entity/,
    );
  });
});

describe('chain root and proofs', () => {
  it('the root is the RFC 6962 root over leaf hashes in seq order', () => {
    const chain = buildChain(6);
    expect(chainRoot(chain)).toBe(merkleRootHex(chain.map((e) => e.leaf_hash)));
    expect(chainRoot([...chain].reverse())).not.toBe(chainRoot(chain));
  });

  it('proves every event against the current root and against an older root', () => {
    const chain = buildChain(11);
    for (const e of chain) {
      const proof = eventInclusionProof(chain, e.seq);
      expect(proof.root_hex).toBe(chainRoot(chain));
      const dataBytes = canonicalEventBytes(e);
      expect(verifyInclusion({ dataBytes, path: proof.path, rootHex: proof.root_hex, index: e.seq, size: 11 })).toBe(true);
    }
    const old = eventInclusionProof(chain, 3, 6);
    expect(old.root_hex).toBe(chainRoot(chain.slice(0, 6)));
    expect(verifyInclusion({ leafHex: old.leaf_hash, path: old.path, rootHex: old.root_hex, index: 3, size: 6 })).toBe(true);
    expect(() => eventInclusionProof(chain, 7, 6)).toThrow(RangeError);
  });
});
