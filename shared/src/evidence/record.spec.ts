import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import { describe, expect, it } from 'vitest';
import { fromHex, sha256, toHex } from './bytes.js';
import { decodeRecord, encodeRecord, identify, verifyRecord, type TreeRecordInput } from './record.js';

const IMG_A = 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e';
const IMG_B = 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku';

const input: TreeRecordInput = {
  code: 'MKL-w3gvk1t-AB12CD34',
  species: 'Sầu riêng',
  geohash: 'w3gvk1t',
  images: [IMG_A, IMG_B],
  created_at: '2026-07-01T08:30:00.000Z',
  schema: 1,
};

describe('identify (CID and hash of DAG-CBOR bytes)', () => {
  // Vectors from the IPLD cross-codec fixtures, ipld/ipld
  // specs/codecs/dag-cbor/fixtures/cross-codec/index.md (generated in ipld/codec-fixtures).
  it.each([
    ['80', 'bafyreidwx2fvfdiaox32v2mnn6sxu3j4qoxeqcuenhtgrv5qv6litfnmoe'], // array-empty
    [
      // cid-bafkreiebzrnroamgos2adnbpgw5apo3z4iishhbdx77gldnbk57d4zdio4: a raw CID as a tag-42 link
      'd82a5825000155122081cc5b17018674b401b42f35ba07bb79e211239c23bffe658da1577e3e646877',
      'bafyreic3yrxqeqgoi24fo3h43nfkfs4cntcx243g3lzv3n2hnmcm5ksnzu',
    ],
  ])('gives the fixture CID for %s', (bytesHex, cid) => {
    const out = identify(fromHex(bytesHex));
    expect(out.cid).toBe(cid);
    expect(out.hash).toBe(toHex(sha256(fromHex(bytesHex))));
  });

  it('encodes a CID link exactly as the fixture does', () => {
    const link = CID.parse('bafkreiebzrnroamgos2adnbpgw5apo3z4iishhbdx77gldnbk57d4zdio4');
    expect(toHex(dagCbor.encode(link))).toBe('d82a5825000155122081cc5b17018674b401b42f35ba07bb79e211239c23bffe658da1577e3e646877');
  });
});

describe('encodeRecord', () => {
  it('gives identical bytes whatever the key order', () => {
    const reordered: TreeRecordInput = {
      schema: 1,
      images: [IMG_A, IMG_B],
      created_at: '2026-07-01T08:30:00.000Z',
      geohash: 'w3gvk1t',
      species: 'Sầu riêng',
      code: 'MKL-w3gvk1t-AB12CD34',
    };
    const a = encodeRecord(input);
    const b = encodeRecord(reordered);
    expect(toHex(b.bytes)).toBe(toHex(a.bytes));
    expect(b.cid).toBe(a.cid);
    expect(a.cid).toMatch(/^bafyrei/);
    expect(a.hash).toBe(toHex(sha256(a.bytes)));
  });

  it('writes map keys in DAG-CBOR order (shorter first, then bytewise)', () => {
    const text = Buffer.from(encodeRecord(input).bytes).toString('latin1');
    const order = ['code', 'images', 'schema', 'geohash', 'species', 'created_at'].map((k) => text.indexOf(k));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
  });

  it('stores images as CID links (tag 42), not strings', () => {
    const decoded = dagCbor.decode(encodeRecord(input).bytes) as { images: unknown[] };
    expect(decoded.images.map((c) => CID.asCID(c)?.toString())).toEqual([IMG_A, IMG_B]);
  });

  it('normalises spellings that would otherwise change the hash', () => {
    const base = encodeRecord(input);
    const decomposed = encodeRecord({ ...input, species: 'Sầu riêng'.normalize('NFD') });
    const shortTime = encodeRecord({ ...input, created_at: '2026-07-01T15:30:00+07:00' });
    const asDate = encodeRecord({ ...input, created_at: new Date('2026-07-01T08:30:00Z') });
    const upperGeohash = encodeRecord({ ...input, geohash: 'W3GVK1T' });
    for (const other of [decomposed, shortTime, asDate, upperGeohash]) expect(other.cid).toBe(base.cid);
  });

  it('changes the CID when any value changes, including image order', () => {
    const base = encodeRecord(input).cid;
    const variants: TreeRecordInput[] = [
      { ...input, code: 'MKL-w3gvk1t-AB12CD35' },
      { ...input, species: 'Mít' },
      { ...input, geohash: 'w3gvk1s' },
      { ...input, images: [IMG_B, IMG_A] },
      { ...input, images: [IMG_A] },
      { ...input, created_at: '2026-07-01T08:30:00.001Z' },
    ];
    for (const v of variants) expect(encodeRecord(v).cid).not.toBe(base);
  });

  it.each([
    [{ geohash: 'w3gvk1tq' }, /geohash/], // finer than 7 characters would publish a precise location
    [{ geohash: 'w3gvk1a' }, /geohash/], // 'a' is not in the geohash alphabet
    [{ images: [IMG_A, IMG_A] }, /twice/],
    [{ images: ['nope'] }, /CID/],
    [{ created_at: 'yesterday' }, /created_at/],
    // No zone: Date would read it in the server's local time, so the hash would depend on TZ.
    [{ created_at: '2026-07-01T08:30:00' }, /created_at/],
    [{ code: '' }, /code/],
    [{ schema: 2 }, /schema/],
    [{ colour: 'red' }, /unknown fields: colour/],
  ])('rejects %j', (patch, message) => {
    expect(() => encodeRecord({ ...input, ...patch } as TreeRecordInput)).toThrow(message);
  });
});

describe('decodeRecord / verifyRecord', () => {
  it('round-trips', () => {
    const enc = encodeRecord(input);
    expect(decodeRecord(enc.bytes)).toEqual(enc.record);
    expect(verifyRecord(enc.bytes, { cid: enc.cid, hash: enc.hash })).toMatchObject({ ok: true, cid: enc.cid });
  });

  it('fails on a single changed byte', () => {
    const enc = encodeRecord(input);
    const tampered = Uint8Array.from(enc.bytes);
    const at = Buffer.from(tampered).indexOf('riêng');
    tampered[at] = 'R'.charCodeAt(0);
    const verdict = verifyRecord(tampered, { cid: enc.cid, hash: enc.hash });
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/record CID is/);
  });

  it('refuses a non-canonical encoding of the same values', () => {
    const enc = encodeRecord(input);
    // Same map, but a key order DAG-CBOR forbids: decodes fine as plain CBOR, must not verify.
    const rec = enc.record;
    const pairs: Array<[string, Uint8Array]> = [
      ['species', dagCbor.encode(rec.species)],
      ['code', dagCbor.encode(rec.code)],
      ['images', dagCbor.encode(rec.images.map((c) => CID.parse(c)))],
      ['schema', dagCbor.encode(rec.schema)],
      ['geohash', dagCbor.encode(rec.geohash)],
      ['created_at', dagCbor.encode(rec.created_at)],
    ];
    const parts: Uint8Array[] = [new Uint8Array([0xa6])];
    for (const [k, v] of pairs) parts.push(dagCbor.encode(k), v);
    const bytes = new Uint8Array(Buffer.concat(parts));
    expect(verifyRecord(bytes, {}).ok).toBe(false);
  });

  it('reports a wrong expected hash', () => {
    const enc = encodeRecord(input);
    const verdict = verifyRecord(enc.bytes, { hash: '00'.repeat(32) });
    expect(verdict).toMatchObject({ ok: false });
    expect(verdict.reason).toMatch(/record hash is/);
  });
});
