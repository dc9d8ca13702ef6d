/**
 * Ed25519 public keys as `did:key` identifiers (W3C CCG did:key method):
 *
 *   did:key:z<base58btc( 0xed 0x01 || 32-byte public key )>
 *
 * 0xed is the multicodec code `ed25519-pub`; as an unsigned varint it is the
 * two bytes 0xed 0x01. The leading `z` is the multibase prefix of base58btc.
 * Every Ed25519 did:key therefore starts with `did:key:z6Mk`.
 *
 * Used by checkpoints (so a third party gets the service key in a standard
 * form) and by accounts for DID sign-in.
 */
import { createHash } from 'node:crypto';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { base58btc } from 'multiformats/bases/base58';
import { EvidenceFormatError } from './bytes.js';

const ED25519_PUB_PREFIX = new Uint8Array([0xed, 0x01]);
const DID_KEY_PREFIX = 'did:key:';

/** did:key of a raw 32-byte Ed25519 public key. */
export function publicKeyToDidKey(raw32: Uint8Array): string {
  if (!(raw32 instanceof Uint8Array) || raw32.length !== 32) {
    throw new EvidenceFormatError('an Ed25519 public key is exactly 32 bytes');
  }
  const bytes = new Uint8Array(34);
  bytes.set(ED25519_PUB_PREFIX, 0);
  bytes.set(raw32, 2);
  return DID_KEY_PREFIX + base58btc.encode(bytes);
}

/**
 * Raw 32-byte Ed25519 public key of a did:key. Accepts a DID URL with a
 * `#fragment` only when the fragment repeats the key (the usual verification
 * method id). Throws {@link EvidenceFormatError} for anything else, including
 * did:keys of other key types.
 */
export function didKeyToPublicKey(did: string): Uint8Array {
  if (typeof did !== 'string' || !did.startsWith(DID_KEY_PREFIX)) {
    throw new EvidenceFormatError('not a did:key');
  }
  const [id, fragment, ...rest] = did.slice(DID_KEY_PREFIX.length).split('#');
  if (rest.length > 0 || (fragment !== undefined && fragment !== id)) {
    throw new EvidenceFormatError('did:key fragment does not match the key');
  }
  let bytes: Uint8Array;
  try {
    bytes = base58btc.decode(id ?? '');
  } catch {
    throw new EvidenceFormatError('did:key is not multibase base58btc');
  }
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) {
    throw new EvidenceFormatError('did:key is not an Ed25519 public key');
  }
  return bytes.slice(2);
}

/** A node:crypto public KeyObject for a raw 32-byte Ed25519 key. */
export function ed25519PublicKeyObject(raw32: Uint8Array): KeyObject {
  if (raw32.length !== 32) throw new EvidenceFormatError('an Ed25519 public key is exactly 32 bytes');
  const x = Buffer.from(raw32).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** Raw 32 bytes of an Ed25519 KeyObject (public, or the public half of a private key). */
export function rawEd25519PublicKey(key: KeyObject): Uint8Array {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== 'ed25519') throw new EvidenceFormatError('key is not Ed25519');
  const jwk = pub.export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(jwk.x as string, 'base64url'));
}

/** did:key of an Ed25519 KeyObject. */
export function keyObjectToDidKey(key: KeyObject): string {
  return publicKeyToDidKey(rawEd25519PublicKey(key));
}

/**
 * A short, human-comparable fingerprint of a did:key: SHA-256 of the raw 32-byte Ed25519 key,
 * first 20 bytes as hex in groups of four (`SHA256:a1b2 c3d4 …`). Printed by the verifier and the
 * public trace page so a person can compare the key a bundle names with the one the service
 * publishes at `/.well-known/markless.json` without reading a whole did:key.
 */
export function keyFingerprint(did: string): string {
  const hex = createHash('sha256').update(didKeyToPublicKey(did)).digest('hex').slice(0, 40);
  return `SHA256:${hex.match(/.{4}/g)!.join(' ')}`;
}
