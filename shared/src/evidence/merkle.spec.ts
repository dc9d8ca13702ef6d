import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toHex } from './bytes.js';
import { consistencyProof, verifyConsistency } from './merkle-consistency.js';
import {
  EMPTY_ROOT_HEX,
  hashLeaf,
  inclusionProof,
  merkleRoot,
  merkleRootHex,
  pathSides,
  verifyInclusion,
  type AuditStep,
} from './merkle.js';

const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));

/*
 * Reference vectors of RFC 6962, as published in transparency-dev/merkle
 * proof/verify_test.go (earlier google/certificate-transparency-go and
 * google/trillian merkle tests): the eight leaf inputs, the roots of the
 * trees of their first 1..8 leaves, inclusion proofs (leaf index, tree size)
 * and consistency proofs (size1, size2).
 */
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(hex);
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
// [0-based leaf index, tree size, proof]; the Go file lists the index 1-based.
const CT_INCLUSION: Array<[number, number, string[]]> = [
  [0, 1, []],
  [
    0,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    5,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    1,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
const CT_CONSISTENCY: Array<[number, number, string[]]> = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
  [
    6,
    7,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
];
const CT_LEAF_HASHES = CT_LEAVES.map((d) => hashLeaf(d));

/** MTH written straight from the RFC text, with array slices, as an independent reference. */
function referenceMth(leaves: Uint8Array[]): Uint8Array {
  const h = (...parts: Uint8Array[]) => new Uint8Array(createHash('sha256').update(Buffer.concat(parts)).digest());
  if (leaves.length === 0) return h();
  if (leaves.length === 1) return h(new Uint8Array([0]), leaves[0] as Uint8Array);
  const k = 2 ** Math.floor(Math.log2(leaves.length - 1));
  return h(new Uint8Array([1]), referenceMth(leaves.slice(0, k)), referenceMth(leaves.slice(k)));
}

/** Small seeded PRNG (mulberry32) so property tests are reproducible. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomLeaves(n: number, rand: () => number): Uint8Array[] {
  return Array.from({ length: n }, () => {
    const len = Math.floor(rand() * 40);
    return new Uint8Array(Array.from({ length: len }, () => Math.floor(rand() * 256)));
  });
}

const flipFirstBit = (h: string) => (parseInt(h.slice(0, 2), 16) ^ 0x80).toString(16).padStart(2, '0') + h.slice(2);

describe('RFC 6962 tree heads', () => {
  it('empty tree root is SHA-256 of nothing', () => {
    expect(toHex(merkleRoot([]))).toBe(EMPTY_ROOT_HEX);
    expect(merkleRootHex([])).toBe(EMPTY_ROOT_HEX);
  });

  it('matches the CT reference root for every size 1..8', () => {
    for (let n = 1; n <= 8; n++) {
      expect(toHex(merkleRoot(CT_LEAF_HASHES.slice(0, n))), `size ${n}`).toBe(CT_ROOTS[n - 1]);
    }
  });

  it('agrees with a slice-based reference MTH for every size 1..64', () => {
    const rand = prng(6962);
    for (let n = 1; n <= 64; n++) {
      const data = randomLeaves(n, rand);
      expect(toHex(merkleRoot(data.map((d) => hashLeaf(d))))).toBe(toHex(referenceMth(data)));
    }
  });
});

describe('inclusion proofs', () => {
  it.each(CT_INCLUSION)('reproduces and verifies the CT proof for leaf %i of %i', (index, size, proof) => {
    const leaves = CT_LEAF_HASHES.slice(0, size);
    const path = inclusionProof(leaves, index);
    expect(path.map((s) => s.sibling)).toEqual(proof);
    expect(path.map((s) => s.right)).toEqual(pathSides(index, size));
    const rootHex = CT_ROOTS[size - 1] as string;
    expect(verifyInclusion({ dataBytes: CT_LEAVES[index], path, rootHex, index, size })).toBe(true);
    expect(verifyInclusion({ leafHex: toHex(leaves[index] as Uint8Array), path, rootHex })).toBe(true);
  });

  it('rejects the corruptions of the CT verifier tests', () => {
    const [index, size] = [5, 8];
    const leaves = CT_LEAF_HASHES.slice(0, size);
    const path = inclusionProof(leaves, index);
    const rootHex = CT_ROOTS[size - 1] as string;
    const leafHex = toHex(leaves[index] as Uint8Array);
    const ok = (p: readonly AuditStep[], extra: Partial<{ index: number; size: number; rootHex: string; leafHex: string }> = {}) =>
      verifyInclusion({ leafHex, path: p, rootHex, index, size, ...extra });
    expect(ok(path)).toBe(true);
    expect(ok(path, { index: index - 1 })).toBe(false);
    expect(ok(path, { index: index + 1 })).toBe(false);
    expect(ok(path, { size: size * 2 })).toBe(false);
    expect(ok(path, { size: size / 2 })).toBe(false);
    expect(ok(path, { rootHex: EMPTY_ROOT_HEX })).toBe(false);
    expect(ok(path, { leafHex: toHex(CT_LEAF_HASHES[0] as Uint8Array) })).toBe(false);
    expect(ok(path.slice(0, -1))).toBe(false);
    expect(ok([...path, { sibling: rootHex, right: true }])).toBe(false);
    expect(ok([{ sibling: rootHex, right: false }, ...path])).toBe(false);
    for (let i = 0; i < path.length; i++) {
      const bad = path.map((s, j) => (j === i ? { ...s, sibling: flipFirstBit(s.sibling) } : s));
      expect(ok(bad), `bit flip in path[${i}]`).toBe(false);
      const swapped = path.map((s, j) => (j === i ? { ...s, right: !s.right } : s));
      expect(verifyInclusion({ leafHex, path: swapped, rootHex }), `side flip in path[${i}]`).toBe(false);
    }
  });

  it('verifies every leaf of every tree size 1..64 and fails on a bit flip in the data', () => {
    const rand = prng(9162);
    for (let n = 1; n <= 64; n++) {
      const data = randomLeaves(n, rand);
      const leaves = data.map((d) => hashLeaf(d));
      const rootHex = toHex(merkleRoot(leaves));
      for (let i = 0; i < n; i++) {
        const path = inclusionProof(leaves, i);
        expect(verifyInclusion({ dataBytes: data[i], path, rootHex, index: i, size: n })).toBe(true);
        const flipped = Uint8Array.from([...(data[i] as Uint8Array), 0]);
        flipped[0] = (flipped[0] as number) ^ 1;
        expect(verifyInclusion({ dataBytes: flipped, path, rootHex })).toBe(false);
      }
    }
  });

  it('applies the salt when hashing data, and only with the right salt', () => {
    const salts = Array.from({ length: 5 }, () => randomBytes(32));
    const data = ['a', 'b', 'c', 'd', 'e'].map((s) => new TextEncoder().encode(s));
    const leaves = data.map((d, i) => hashLeaf(d, salts[i]));
    const rootHex = toHex(merkleRoot(leaves));
    const path = inclusionProof(leaves, 3);
    expect(toHex(leaves[3] as Uint8Array)).toBe(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from([0]), salts[3] as Buffer, data[3] as Uint8Array]))
        .digest('hex'),
    );
    expect(verifyInclusion({ dataBytes: data[3], saltHex: toHex(salts[3] as Buffer), path, rootHex })).toBe(true);
    expect(verifyInclusion({ dataBytes: data[3], saltHex: toHex(salts[2] as Buffer), path, rootHex })).toBe(false);
    expect(verifyInclusion({ dataBytes: data[3], path, rootHex })).toBe(false);
  });

  it('refuses malformed input instead of answering false', () => {
    const rootHex = CT_ROOTS[0] as string;
    expect(() => verifyInclusion({ path: [], rootHex })).toThrow(/exactly one/);
    expect(() => verifyInclusion({ leafHex: rootHex, saltHex: '00'.repeat(32), path: [], rootHex })).toThrow(/saltHex/);
    expect(() => verifyInclusion({ leafHex: 'zz', path: [], rootHex })).toThrow(/hex/);
    expect(() => verifyInclusion({ dataBytes: new Uint8Array(), saltHex: 'ab', path: [], rootHex })).toThrow(/32 bytes/);
    expect(() => inclusionProof(CT_LEAF_HASHES, 8)).toThrow(RangeError);
    const path = JSON.parse('[{"sibling":"' + rootHex + '","right":"false"}]') as AuditStep[];
    expect(() => verifyInclusion({ leafHex: rootHex, path, rootHex })).toThrow(/boolean/);
  });
});

describe('consistency proofs (RFC 9162 2.1.4)', () => {
  it.each(CT_CONSISTENCY)('reproduces and verifies the CT proof %i -> %i', (m, n, proof) => {
    expect(consistencyProof(CT_LEAF_HASHES.slice(0, n), m)).toEqual(proof);
    const input = { m, n, rootM: CT_ROOTS[m - 1] as string, rootN: CT_ROOTS[n - 1] as string, proof };
    expect(verifyConsistency(input)).toBe(true);
  });

  it('rejects the corruptions of the CT verifier tests', () => {
    const [m, n] = [6, 8];
    const proof = consistencyProof(CT_LEAF_HASHES, m);
    const rootM = CT_ROOTS[m - 1] as string;
    const rootN = CT_ROOTS[n - 1] as string;
    const ok = (over: Partial<{ m: number; n: number; rootM: string; rootN: string; proof: string[] }>) =>
      verifyConsistency({ m, n, rootM, rootN, proof, ...over });
    expect(ok({})).toBe(true);
    for (const bad of [{ m: m - 1 }, { m: m + 1 }, { m: m ^ 2 }, { n: n * 2 }, { n: n / 2 }, { m: 0 }, { m: 9 }]) {
      expect(ok(bad), JSON.stringify(bad)).toBe(false);
    }
    expect(ok({ rootM: rootN, rootN: rootM })).toBe(false);
    expect(ok({ proof: [] })).toBe(false);
    expect(ok({ proof: [...proof, rootM] })).toBe(false);
    expect(ok({ proof: [rootN, ...proof] })).toBe(false);
    expect(ok({ proof: proof.slice(0, -1) })).toBe(false);
    proof.forEach((_, i) => {
      expect(ok({ proof: proof.map((h, j) => (j === i ? flipFirstBit(h) : h)) }), `bit flip ${i}`).toBe(false);
    });
    expect(verifyConsistency({ m: 3, n: 3, rootM: rootN, rootN, proof: [] })).toBe(true);
    expect(verifyConsistency({ m: 3, n: 3, rootM: rootN, rootN, proof: [rootN] })).toBe(false);
  });

  it('proves every prefix m <= n for random trees of size 1..64, and not a rewritten one', () => {
    const rand = prng(2);
    for (let n = 1; n <= 64; n++) {
      const leaves = randomLeaves(n, rand).map((d) => hashLeaf(d));
      const rootN = toHex(merkleRoot(leaves));
      for (let m = 1; m <= n; m++) {
        const rootM = toHex(merkleRoot(leaves.slice(0, m)));
        const proof = consistencyProof(leaves, m);
        expect(verifyConsistency({ m, n, rootM, rootN, proof }), `${m}->${n}`).toBe(true);
        // A history where leaf 0 was rewritten must not pass with the same proof.
        const forged = toHex(merkleRoot([hashLeaf(new Uint8Array([7, 7, 7])), ...leaves.slice(1, m)]));
        expect(verifyConsistency({ m, n, rootM: forged, rootN, proof })).toBe(false);
      }
    }
  });
});
