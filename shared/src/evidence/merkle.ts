/**
 * Merkle tree hashing of RFC 6962 section 2.1 / RFC 9162 section 2.1, the
 * scheme of Certificate Transparency, so that any CT-style verifier can check
 * our proofs:
 *
 *   leaf hash  = SHA-256(0x00 || [salt] || data)
 *   node hash  = SHA-256(0x01 || left || right)
 *   empty tree = SHA-256("")
 *   MTH(D[n])  = NODE(MTH(D[0:k]), MTH(D[k:n])), k = largest power of two < n
 *
 * The 0x00/0x01 prefixes stop a node from being passed off as a leaf (second
 * pre-image). Works for any n, not only powers of two.
 *
 * Salt (our extension; absent = plain RFC 6962): a per-leaf random value of
 * exactly 32 bytes inserted after the 0x00 prefix and before the data. It
 * keeps a low-entropy leaf (say a short private event) from being guessed
 * from its published hash. It is fixed-length on purpose: with a variable
 * length, `salt || data` could be split in two places and two different
 * (salt, data) pairs would share a hash. Verification applies it the same way:
 * {@link verifyInclusion} with `dataBytes` + `saltHex` recomputes this leaf.
 *
 * Audit paths are `{sibling, right}` steps from the leaf upwards: `right: true`
 * means the sibling is on the right, i.e. parent = NODE(current, sibling).
 * Consistency proofs are in merkle-consistency.ts.
 */
import { EvidenceFormatError, bytesEqual, fromHex, sha256, toHex } from './bytes.js';

/** One step of an audit path (RFC 6962 PATH), from the leaf towards the root. */
export interface AuditStep {
  /** Hex SHA-256 of the sibling subtree. */
  readonly sibling: string;
  /** True when the sibling is the right child (parent = NODE(current, sibling)). */
  readonly right: boolean;
}

/** Salt length in bytes; see the module comment for why it is fixed. */
export const SALT_BYTES = 32;

/** Root of the empty tree, SHA-256 of the empty string (RFC 6962 MTH({})). */
export const EMPTY_ROOT_HEX = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

/** RFC 6962 leaf hash, SHA-256(0x00 || [salt] || data). */
export function hashLeaf(data: Uint8Array, salt?: Uint8Array): Uint8Array {
  if (salt === undefined) return sha256(LEAF_PREFIX, data);
  if (salt.length !== SALT_BYTES) throw new EvidenceFormatError(`salt must be exactly ${SALT_BYTES} bytes`);
  return sha256(LEAF_PREFIX, salt, data);
}

/** RFC 6962 interior node hash, SHA-256(0x01 || left || right). */
export function hashNode(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_PREFIX, left, right);
}

/** Largest power of two strictly less than n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 6962 MTH over already-hashed leaves (use {@link hashLeaf} on the data first). */
export function merkleRoot(leafHashes: readonly Uint8Array[]): Uint8Array {
  if (leafHashes.length === 0) return sha256();
  return subtreeRoot(leafHashes, 0, leafHashes.length);
}

/** {@link merkleRoot} over hex leaf hashes, returning hex. */
export function merkleRootHex(leafHashesHex: readonly string[]): string {
  return toHex(merkleRoot(leafHashesHex.map((h, i) => fromHex(h, 32, `leaf hash ${i}`))));
}

/** MTH of leafHashes[start, end); recursion depth is log2(n). */
export function subtreeRoot(leafHashes: readonly Uint8Array[], start: number, end: number): Uint8Array {
  const n = end - start;
  if (n === 1) return leafHashes[start] as Uint8Array;
  const k = splitPoint(n);
  return hashNode(subtreeRoot(leafHashes, start, start + k), subtreeRoot(leafHashes, start + k, end));
}

/**
 * RFC 6962 PATH(index, D[n]): the audit path proving leaf `index` is in the
 * tree of all `leafHashes`.
 */
export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): AuditStep[] {
  const n = leafHashes.length;
  if (!Number.isSafeInteger(index) || index < 0 || index >= n) {
    throw new RangeError(`leaf index ${index} is outside a tree of ${n} leaves`);
  }
  const steps: AuditStep[] = [];
  let start = 0;
  let end = n;
  // Walk root-to-leaf, then reverse: each level contributes the other half's root.
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      steps.push({ sibling: toHex(subtreeRoot(leafHashes, start + k, end)), right: true });
      end = start + k;
    } else {
      steps.push({ sibling: toHex(subtreeRoot(leafHashes, start, start + k)), right: false });
      start += k;
    }
  }
  return steps.reverse();
}

/**
 * The sibling sides an audit path for leaf `index` in a tree of `size` leaves
 * must have, leaf upwards. Its length is the path length. Used to bind a
 * `{sibling, right}` path to a claimed position.
 */
export function pathSides(index: number, size: number): boolean[] {
  if (!Number.isSafeInteger(size) || size < 1 || !Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw new RangeError(`leaf index ${index} is outside a tree of ${size} leaves`);
  }
  const sides: boolean[] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    const goLeft = index < start + k;
    sides.push(goLeft);
    if (goLeft) end = start + k;
    else start += k;
  }
  return sides.reverse();
}

/** Folds an audit path onto a leaf hash, giving the root it implies. */
export function rootFromAuditPath(leafHash: Uint8Array, path: readonly AuditStep[]): Uint8Array {
  let node = leafHash;
  for (const [i, step] of path.entries()) {
    // From JSON, "false" (a string) would be truthy and silently flip the side.
    if (typeof step?.right !== 'boolean') throw new EvidenceFormatError(`path[${i}].right must be a boolean`);
    const sibling = fromHex(step.sibling, 32, `path[${i}].sibling`);
    node = step.right ? hashNode(node, sibling) : hashNode(sibling, node);
  }
  return node;
}

/** Input of {@link verifyInclusion}: exactly one of `leafHex` or `dataBytes`. */
export interface VerifyInclusionInput {
  /** The leaf hash itself (hex). */
  readonly leafHex?: string;
  /** The leaf data; hashed here with {@link hashLeaf} (and `saltHex` if given). */
  readonly dataBytes?: Uint8Array;
  /** The 32-byte per-leaf salt (hex), only meaningful with `dataBytes`. */
  readonly saltHex?: string;
  readonly path: readonly AuditStep[];
  readonly rootHex: string;
  /** Optional claimed position; when given with `size`, the path's sides must match it. */
  readonly index?: number;
  readonly size?: number;
}

/**
 * Checks an inclusion proof. Returns false for a proof that does not verify;
 * throws {@link EvidenceFormatError} for input that is malformed (bad hex,
 * both or neither of leaf and data, a salt given with a leaf hash).
 */
export function verifyInclusion(input: VerifyInclusionInput): boolean {
  const leaf = leafFromInput(input);
  const root = fromHex(input.rootHex, 32, 'rootHex');
  if (!Array.isArray(input.path)) throw new EvidenceFormatError('path must be an array');
  if (input.index !== undefined || input.size !== undefined) {
    if (input.index === undefined || input.size === undefined) {
      throw new EvidenceFormatError('index and size must be given together');
    }
    if (!sidesMatch(input.path, input.index, input.size)) return false;
  }
  return bytesEqual(rootFromAuditPath(leaf, input.path), root);
}

function leafFromInput(input: VerifyInclusionInput): Uint8Array {
  const hasLeaf = input.leafHex !== undefined;
  const hasData = input.dataBytes !== undefined;
  if (hasLeaf === hasData) throw new EvidenceFormatError('give exactly one of leafHex or dataBytes');
  if (hasLeaf) {
    // A salt only enters when hashing data; accepting it here would silently ignore it.
    if (input.saltHex !== undefined) throw new EvidenceFormatError('saltHex applies to dataBytes, not to a leaf hash');
    return fromHex(input.leafHex as string, 32, 'leafHex');
  }
  const salt = input.saltHex === undefined ? undefined : fromHex(input.saltHex, SALT_BYTES, 'saltHex');
  return hashLeaf(input.dataBytes as Uint8Array, salt);
}

function sidesMatch(path: readonly AuditStep[], index: number, size: number): boolean {
  let sides: boolean[];
  try {
    sides = pathSides(index, size);
  } catch {
    return false;
  }
  return sides.length === path.length && sides.every((right, i) => path[i]?.right === right);
}
