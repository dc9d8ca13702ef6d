/**
 * Signed checkpoints of the `local` anchor backend: an append-only log in
 * which the service signs, with one Ed25519 key, "entity E's chain had
 * `size` events and root `root_hex`". Each checkpoint names the hash of the
 * one before it, so the service cannot quietly drop or rewrite one without
 * breaking every later link; the signer's key travels as a did:key so anyone
 * can check a checkpoint offline.
 *
 * Signed message = DAG-CBOR of
 *   { type: "markless.checkpoint/v1", log_id, seq, entity, size, root_hex,
 *     prev_checkpoint_hash, created_at, signer }
 * The `type` string keeps a signature over a checkpoint from being replayed
 * as a signature over any other message signed by the same key; `signer`
 * is inside the message so the key claim is itself signed.
 * Ed25519 (RFC 8032, pure) signatures are deterministic, so re-signing the
 * same checkpoint gives the same bytes.
 *
 * checkpoint hash = hex SHA-256 of the signed message; prev_checkpoint_hash
 * of the first checkpoint of a log is 64 zeros.
 */
import { generateKeyPairSync, sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';
import * as dagCbor from '@ipld/dag-cbor';
import { EvidenceFormatError, canonicalTimestamp, fromHex, isHash32Hex, requireCount, requireString, sha256, toHex } from './bytes.js';
import { didKeyToPublicKey, ed25519PublicKeyObject, keyObjectToDidKey, publicKeyToDidKey } from './did-key.js';

export { didKeyToPublicKey, publicKeyToDidKey } from './did-key.js';

/** The `type` inside every signed message of this format. */
export const CHECKPOINT_TYPE = 'markless.checkpoint/v1';
/** prev_checkpoint_hash of the first checkpoint of a log. */
export const GENESIS_CHECKPOINT_HASH = '0'.repeat(64);

/** What the log signs. */
export interface CheckpointInput {
  /** Identifies the log (one per service deployment). */
  readonly log_id: string;
  /** Position of this checkpoint in the log, from 0. */
  readonly seq: number;
  /** The anchored chain, as `<entity_type>/<entity_id>`. */
  readonly entity: string;
  /** Number of events (leaves) under root_hex. */
  readonly size: number;
  readonly root_hex: string;
  readonly prev_checkpoint_hash: string;
  readonly created_at: string | Date;
}

/** A signed checkpoint, as stored and exported (JSON-safe). */
export interface SignedCheckpoint extends CheckpointInput {
  readonly type: typeof CHECKPOINT_TYPE;
  readonly created_at: string;
  /** did:key of the signing Ed25519 key. */
  readonly signer: string;
  /** Hex Ed25519 signature (64 bytes) over {@link checkpointSigningBytes}. */
  readonly signature_hex: string;
}

/** Result of the verify functions; broken_at is an index into the list checked. */
export interface CheckpointVerdict {
  readonly ok: boolean;
  readonly reason?: string;
  readonly broken_at?: number;
}

/** A fresh Ed25519 key pair for a checkpoint log, with its did:key. */
export function generateCheckpointKey(): { privateKey: KeyObject; publicKey: KeyObject; did: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, did: keyObjectToDidKey(publicKey) };
}

/** The exact bytes that are signed (and hashed for the log link). */
export function checkpointSigningBytes(cp: CheckpointInput & { readonly signer: string }): Uint8Array {
  const root = requireHashHex(cp.root_hex, 'root_hex');
  const prev = requireHashHex(cp.prev_checkpoint_hash, 'prev_checkpoint_hash');
  didKeyToPublicKey(cp.signer);
  return dagCbor.encode({
    type: CHECKPOINT_TYPE,
    log_id: requireString(cp.log_id, 'log_id'),
    seq: requireCount(cp.seq, 'seq'),
    entity: requireString(cp.entity, 'entity'),
    size: requireCount(cp.size, 'size'),
    root_hex: root,
    prev_checkpoint_hash: prev,
    created_at: canonicalTimestamp(cp.created_at),
    signer: cp.signer,
  });
}

/** Signs a checkpoint with the log's Ed25519 private key. */
export function signCheckpoint(input: CheckpointInput, privateKey: KeyObject): SignedCheckpoint {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new EvidenceFormatError('checkpoints are signed with an Ed25519 private key');
  }
  const unsigned = {
    type: CHECKPOINT_TYPE,
    log_id: input.log_id,
    seq: input.seq,
    entity: input.entity,
    size: input.size,
    root_hex: input.root_hex,
    prev_checkpoint_hash: input.prev_checkpoint_hash,
    created_at: canonicalTimestamp(input.created_at),
    signer: keyObjectToDidKey(privateKey),
  } as const;
  const signature = edSign(null, checkpointSigningBytes(unsigned), privateKey);
  return { ...unsigned, signature_hex: toHex(signature) };
}

/** Hex SHA-256 of a checkpoint's signed message: the value the next checkpoint links to. */
export function checkpointHash(cp: SignedCheckpoint): string {
  return toHex(sha256(checkpointSigningBytes(cp)));
}

/**
 * Verifies one checkpoint's signature against the key the verifier trusts
 * (a KeyObject, a did:key, or the raw 32 bytes), which must also be the key
 * the checkpoint names as signer.
 */
export function verifyCheckpoint(cp: SignedCheckpoint, publicKey: KeyObject | string | Uint8Array): CheckpointVerdict {
  try {
    const trusted = typeof publicKey === 'string' ? didKeyToPublicKey(publicKey) : publicKey;
    const key = trusted instanceof Uint8Array ? ed25519PublicKeyObject(trusted) : trusted;
    const trustedDid = keyObjectToDidKey(key);
    if (cp.type !== CHECKPOINT_TYPE) return { ok: false, reason: `unknown checkpoint type ${String(cp.type)}` };
    if (cp.signer !== trustedDid) return { ok: false, reason: `signed by ${cp.signer}, expected ${trustedDid}` };
    const signature = fromHex(cp.signature_hex, 64, 'signature_hex');
    const ok = edVerify(null, checkpointSigningBytes(cp), key, signature);
    return ok ? { ok } : { ok, reason: 'signature does not verify' };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/**
 * Verifies a whole log from its first checkpoint: every signature, seq
 * 0,1,2..., each prev_checkpoint_hash linking to the previous checkpoint,
 * and no entity's size going down (the chains are append-only). Whether a
 * larger root really extends a smaller one needs a consistency proof
 * (merkle-consistency.ts), which the log itself does not carry.
 */
export function verifyCheckpointLog(cps: readonly SignedCheckpoint[], publicKey: KeyObject | string | Uint8Array): CheckpointVerdict {
  const sizes = new Map<string, number>();
  for (const [i, cp] of cps.entries()) {
    const sig = verifyCheckpoint(cp, publicKey);
    if (!sig.ok) return { ...sig, broken_at: i };
    const prev = cps[i - 1];
    const expectedPrev = prev ? checkpointHash(prev) : GENESIS_CHECKPOINT_HASH;
    if (cp.seq !== i) return { ok: false, broken_at: i, reason: `checkpoint ${i} has seq ${cp.seq}` };
    if (cp.prev_checkpoint_hash !== expectedPrev)
      return { ok: false, broken_at: i, reason: `checkpoint ${i} does not link to checkpoint ${i - 1}` };
    if (prev && cp.log_id !== prev.log_id) return { ok: false, broken_at: i, reason: `checkpoint ${i} is from another log` };
    if (cp.size < (sizes.get(cp.entity) ?? 0)) return { ok: false, broken_at: i, reason: `checkpoint ${i} shrinks ${cp.entity}` };
    sizes.set(cp.entity, cp.size);
  }
  return { ok: true };
}

function requireHashHex(value: unknown, what: string): string {
  if (!isHash32Hex(value)) throw new EvidenceFormatError(`${what} must be 64 lowercase hex characters`);
  return value;
}

/** Convenience: did:key of a raw key given as hex (e.g. from configuration). */
export function didKeyFromPublicKeyHex(hex: string): string {
  return publicKeyToDidKey(fromHex(hex, 32, 'public key'));
}
