import { createPrivateKey, sign } from 'node:crypto';
import { base58btc } from 'multiformats/bases/base58';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from './bytes.js';
import {
  GENESIS_CHECKPOINT_HASH,
  checkpointHash,
  didKeyToPublicKey,
  generateCheckpointKey,
  publicKeyToDidKey,
  signCheckpoint,
  verifyCheckpoint,
  verifyCheckpointLog,
  type CheckpointInput,
  type SignedCheckpoint,
} from './checkpoint.js';
import { rawEd25519PublicKey } from './did-key.js';

// W3C CCG did:key method spec example, also the test vector of
// hyperledger/aries-framework-go fingerprint_test.go (TestCreateDIDKey):
// publicKeyBase58 B12NYF8R... is the did:key below.
const SPEC_KEY_B58 = 'B12NYF8RrR3h41TDCTJojY59usg3mbtbjnFs7Eud1Y6u';
const SPEC_DID = 'did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH';

// RFC 8032 section 7.1, TEST 1 (Ed25519, empty message).
const RFC8032_SECRET = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const RFC8032_PUBLIC = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const RFC8032_SIG_EMPTY =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';

function rfc8032Key() {
  const b64 = (h: string) => Buffer.from(h, 'hex').toString('base64url');
  return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: b64(RFC8032_SECRET), x: b64(RFC8032_PUBLIC) }, format: 'jwk' });
}

const base: CheckpointInput = {
  log_id: 'markless-test-log',
  seq: 0,
  entity: 'tree/tree-42',
  size: 5,
  root_hex: '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  prev_checkpoint_hash: GENESIS_CHECKPOINT_HASH,
  created_at: '2026-07-01T09:00:00Z',
};

describe('did:key', () => {
  it('encodes the spec example key to its published did:key and back', () => {
    const raw = base58btc.baseDecode(SPEC_KEY_B58);
    expect(publicKeyToDidKey(raw)).toBe(SPEC_DID);
    expect(toHex(didKeyToPublicKey(SPEC_DID))).toBe(toHex(raw));
    expect(toHex(didKeyToPublicKey(`${SPEC_DID}#${SPEC_DID.slice(8)}`))).toBe(toHex(raw));
  });

  it('rejects non-Ed25519 and malformed did:keys', () => {
    // An RSA did:key from the same spec (multicodec 0x1205), truncated: not Ed25519.
    expect(() => didKeyToPublicKey('did:key:z4MXj1wBzi9jUstyPMS4jQqB6KdJaiatPkAtVtGc6bQEQEEsKTic4G7Rou3iBf9vPmT5dbkm9qs')).toThrow();
    expect(() => didKeyToPublicKey('did:web:example.org')).toThrow(/not a did:key/);
    expect(() => didKeyToPublicKey('did:key:zzzz')).toThrow();
    expect(() => didKeyToPublicKey(`${SPEC_DID}#z6MkOther`)).toThrow(/fragment/);
    expect(() => publicKeyToDidKey(new Uint8Array(31))).toThrow(/32 bytes/);
  });

  it('derives the RFC 8032 public key from its secret and signs like the RFC', () => {
    const key = rfc8032Key();
    expect(toHex(rawEd25519PublicKey(key))).toBe(RFC8032_PUBLIC);
    expect(sign(null, new Uint8Array(), key).toString('hex')).toBe(RFC8032_SIG_EMPTY);
    expect(publicKeyToDidKey(fromHex(RFC8032_PUBLIC))).toMatch(/^did:key:z6Mk/);
  });
});

describe('signCheckpoint / verifyCheckpoint', () => {
  const { privateKey, publicKey, did } = generateCheckpointKey();

  it('verifies with the KeyObject, the did:key or the raw key, also after a JSON round trip', () => {
    const cp = signCheckpoint(base, privateKey);
    expect(cp.signer).toBe(did);
    expect(cp.created_at).toBe('2026-07-01T09:00:00.000Z');
    expect(verifyCheckpoint(cp, publicKey)).toEqual({ ok: true });
    expect(verifyCheckpoint(cp, did)).toEqual({ ok: true });
    expect(verifyCheckpoint(cp, didKeyToPublicKey(did))).toEqual({ ok: true });
    expect(verifyCheckpoint(JSON.parse(JSON.stringify(cp)) as SignedCheckpoint, did)).toEqual({ ok: true });
  });

  it('is deterministic', () => {
    expect(signCheckpoint(base, privateKey)).toEqual(signCheckpoint(base, privateKey));
  });

  it.each([
    ['root_hex', { root_hex: '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef' }],
    ['size', { size: 6 }],
    ['entity', { entity: 'tree/tree-43' }],
    ['seq', { seq: 1 }],
    ['created_at', { created_at: '2026-07-01T09:00:00.001Z' }],
    ['log_id', { log_id: 'other' }],
  ])('fails when %s is changed after signing', (_field, patch) => {
    const cp = { ...signCheckpoint(base, privateKey), ...patch };
    expect(verifyCheckpoint(cp, did)).toMatchObject({ ok: false, reason: 'signature does not verify' });
  });

  it('fails on a flipped signature bit and on the wrong trusted key', () => {
    const cp = signCheckpoint(base, privateKey);
    const sig = fromHex(cp.signature_hex);
    sig[10] = (sig[10] as number) ^ 1;
    expect(verifyCheckpoint({ ...cp, signature_hex: toHex(sig) }, did).ok).toBe(false);
    const other = generateCheckpointKey();
    expect(verifyCheckpoint(cp, other.did)).toMatchObject({ ok: false, reason: expect.stringMatching(/expected/) });
    // Claiming another signer does not help either: the signature is over the signer field.
    expect(verifyCheckpoint({ ...cp, signer: other.did }, other.did).ok).toBe(false);
  });

  it('refuses malformed fields when signing', () => {
    expect(() => signCheckpoint({ ...base, root_hex: 'abc' }, privateKey)).toThrow(/root_hex/);
    expect(() => signCheckpoint({ ...base, size: -1 }, privateKey)).toThrow(/size/);
    expect(() => signCheckpoint(base, publicKey)).toThrow(/private key/);
  });
});

describe('verifyCheckpointLog', () => {
  const { privateKey, did } = generateCheckpointKey();
  function buildLog(sizes: Array<[string, number]>): SignedCheckpoint[] {
    const log: SignedCheckpoint[] = [];
    sizes.forEach(([entity, size], seq) => {
      const prev = log.at(-1);
      const prev_checkpoint_hash = prev ? checkpointHash(prev) : GENESIS_CHECKPOINT_HASH;
      log.push(signCheckpoint({ ...base, seq, entity, size, prev_checkpoint_hash }, privateKey));
    });
    return log;
  }

  it('accepts a linked log and rejects a removed, reordered or shrinking one', () => {
    const log = buildLog([
      ['tree/a', 1],
      ['tree/b', 3],
      ['tree/a', 2],
      ['tree/a', 5],
    ]);
    expect(verifyCheckpointLog(log, did)).toEqual({ ok: true });
    expect(verifyCheckpointLog([log[0], log[2], log[3]] as SignedCheckpoint[], did)).toMatchObject({ ok: false, broken_at: 1 });
    expect(verifyCheckpointLog([log[1], log[0]] as SignedCheckpoint[], did)).toMatchObject({ ok: false, broken_at: 0 });
    const shrinking = buildLog([
      ['tree/a', 4],
      ['tree/a', 3],
    ]);
    expect(verifyCheckpointLog(shrinking, did)).toMatchObject({ ok: false, broken_at: 1, reason: expect.stringMatching(/shrinks/) });
  });
});
