/**
 * Consistency proofs between two sizes of the same append-only Merkle tree
 * (RFC 9162 section 2.1.4): proof that the tree of the first m leaves is a
 * prefix of the tree of n leaves, so an anchored root was never rewritten,
 * only extended. Hashing is merkle.ts's RFC 6962 hashing.
 */
import { bytesEqual, fromHex, toHex } from './bytes.js';
import { hashNode, splitPoint, subtreeRoot } from './merkle.js';

/**
 * RFC 9162 PROOF(m, D[n]) for 1 <= m <= n: the list of hex node hashes.
 * Empty when m == n (the roots must simply be equal).
 */
export function consistencyProof(leafHashes: readonly Uint8Array[], m: number): string[] {
  const n = leafHashes.length;
  if (!Number.isSafeInteger(m) || m < 1 || m > n) {
    throw new RangeError(`consistency proof needs 1 <= m <= n (m=${m}, n=${n})`);
  }
  return subproof(leafHashes, m, 0, n, true).map(toHex);
}

/**
 * SUBPROOF(m, D[start:end], b) of RFC 9162 2.1.4.1. `b` is true while the
 * m-subtree is still a whole subtree of the old tree, whose root the verifier
 * already knows and therefore need not be sent.
 */
function subproof(leaves: readonly Uint8Array[], m: number, start: number, end: number, b: boolean): Uint8Array[] {
  const n = end - start;
  if (m === n) return b ? [] : [subtreeRoot(leaves, start, end)];
  const k = splitPoint(n);
  if (m <= k) {
    return [...subproof(leaves, m, start, start + k, b), subtreeRoot(leaves, start + k, end)];
  }
  return [...subproof(leaves, m - k, start + k, end, false), subtreeRoot(leaves, start, start + k)];
}

/** Input of {@link verifyConsistency}. Roots and proof elements are hex SHA-256. */
export interface VerifyConsistencyInput {
  readonly m: number;
  readonly n: number;
  readonly rootM: string;
  readonly rootN: string;
  readonly proof: readonly string[];
}

/**
 * RFC 9162 2.1.4.2 verification. Returns false for a proof that does not
 * verify (including m > n or m < 1); throws EvidenceFormatError (bytes.ts) for
 * malformed hex.
 */
export function verifyConsistency(input: VerifyConsistencyInput): boolean {
  const { m, n } = input;
  const first = fromHex(input.rootM, 32, 'rootM');
  const second = fromHex(input.rootN, 32, 'rootN');
  const proof = input.proof.map((h, i) => fromHex(h, 32, `proof[${i}]`));
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m < 1 || m > n) return false;
  if (m === n) return proof.length === 0 && bytesEqual(first, second);
  if (proof.length === 0) return false;
  return foldConsistency(m, n, first, second, proof);
}

function foldConsistency(m: number, n: number, first: Uint8Array, second: Uint8Array, proof: Uint8Array[]): boolean {
  // Step 1: when m is a power of two the old root is itself a node of the new tree.
  const path = isPowerOfTwo(m) ? [first, ...proof] : proof;
  // Steps 2-3 (BigInt: sizes may exceed 2^32 and JS bit operators are 32-bit).
  let fn = BigInt(m - 1);
  let sn = BigInt(n - 1);
  while (fn & 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if (fn & 1n || fn === sn) {
      fr = hashNode(c, fr);
      sr = hashNode(c, sr);
      if (!(fn & 1n)) {
        while (!(fn & 1n) && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = hashNode(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && bytesEqual(fr, first) && bytesEqual(sr, second);
}

function isPowerOfTwo(x: number): boolean {
  return x > 0 && (BigInt(x) & (BigInt(x) - 1n)) === 0n;
}
