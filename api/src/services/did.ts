import { verify as verifySig, type KeyObject } from 'node:crypto';
import { didKeyToPublicKey, ed25519PublicKeyObject, publicKeyToDidKey } from '../../../shared/src/evidence/did-key.js';

/** Public key of a `did:key:z6Mk...` Ed25519 identifier, or null when it is not one. */
export function publicKeyFromDidKey(did: string): KeyObject | null {
  try {
    return ed25519PublicKeyObject(didKeyToPublicKey(did));
  } catch {
    // Anything that is not a valid Ed25519 did:key is "not a did:key", never a 500.
    return null;
  }
}

/** `did:key` for a raw 32-byte Ed25519 public key. */
export const didKeyFromRaw = publicKeyToDidKey;

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
