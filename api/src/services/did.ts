import { createPublicKey, verify as verifySig, type KeyObject } from 'node:crypto';
import { base58btc } from 'multiformats/bases/base58';

const ED25519_MULTICODEC = [0xed, 0x01];
// DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 raw key bytes follow it.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Public key of a `did:key:z6Mk...` Ed25519 identifier, or null when it is not one. */
export function publicKeyFromDidKey(did: string): KeyObject | null {
  const m = /^did:key:(z[1-9A-HJ-NP-Za-km-z]+)$/.exec(did);
  if (!m) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58btc.decode(m[1]!);
  } catch {
    return null;
  }
  if (bytes.length !== 34 || bytes[0] !== ED25519_MULTICODEC[0] || bytes[1] !== ED25519_MULTICODEC[1]) return null;
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, bytes.subarray(2)]), format: 'der', type: 'spki' });
  } catch {
    // Bytes that are not a valid Ed25519 point: treat as "not a did:key", never as a 500.
    return null;
  }
}

/** `did:key` for a raw 32-byte Ed25519 public key. */
export function didKeyFromRaw(raw32: Uint8Array): string {
  return `did:key:${base58btc.encode(Uint8Array.from([...ED25519_MULTICODEC, ...raw32]))}`;
}

/** Check an Ed25519 signature (base64, base64url or hex) over the UTF-8 bytes of `message`. */
export function verifyDidSignature(did: string, message: string, signature: string): boolean {
  const key = publicKeyFromDidKey(did);
  if (!key) return false;
  const sig = decodeSignature(signature);
  if (!sig || sig.length !== 64) return false;
  return verifySig(null, Buffer.from(message, 'utf8'), key, sig);
}

function decodeSignature(s: string): Buffer | null {
  if (/^[0-9a-fA-F]{128}$/.test(s)) return Buffer.from(s, 'hex');
  if (/^[A-Za-z0-9+/_-]+=*$/.test(s)) return Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return null;
}
