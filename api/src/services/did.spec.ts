import { generateKeyPairSync, sign } from 'node:crypto';
import { base58btc } from 'multiformats/bases/base58';
import { describe, expect, it } from 'vitest';
import { didKeyFromRaw, publicKeyFromDidKey, verifyDidSignature } from './did.js';

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { raw, did: didKeyFromRaw(raw), privateKey };
}

describe('did:key (Ed25519)', () => {
  it('encodes a raw key as z6Mk... and decodes back to the same key', () => {
    const { raw, did } = keyPair();
    expect(did).toMatch(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    const back = publicKeyFromDidKey(did)!.export({ format: 'jwk' }).x;
    expect(Buffer.from(back!, 'base64url').equals(raw)).toBe(true);
  });

  it('refuses other methods, other key types, wrong lengths and bad base58', () => {
    const { raw } = keyPair();
    const secp = `did:key:${base58btc.encode(Uint8Array.from([0xe7, 0x01, ...raw, 0]))}`;
    const short = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...raw.subarray(1)]))}`;
    for (const d of ['did:web:example.org', secp, short, 'did:key:z0OIl', 'did:key:abc']) {
      expect(publicKeyFromDidKey(d)).toBeNull();
    }
  });

  it('verifies a signature in base64, base64url and hex, and nothing else', () => {
    const { did, privateKey } = keyPair();
    const msg = 'markless sign-in abc';
    const sig = sign(null, Buffer.from(msg), privateKey);
    for (const enc of ['base64', 'base64url', 'hex'] as const) expect(verifyDidSignature(did, msg, sig.toString(enc))).toBe(true);
    expect(verifyDidSignature(did, `${msg}x`, sig.toString('base64'))).toBe(false);
    expect(verifyDidSignature(did, msg, sig.subarray(0, 63).toString('base64'))).toBe(false);
    expect(verifyDidSignature(did, msg, 'not base64 at all!')).toBe(false);
    expect(verifyDidSignature(keyPair().did, msg, sig.toString('base64'))).toBe(false);
  });
});
