import { createCipheriv, createHash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import { describe, expect, it } from 'vitest';
import { KUBO_CIDV1_PROFILE, MemoryBlockstore, bytesMatchCid, canonicalCid, cidForBytes, cidForStream, type UnixfsProfile } from './cid.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

/**
 * Kubo's test-data generator, re-implemented: ipfs/kubo
 * test/cli/testutils/random_deterministic.go `DeterministicRandomReaderBytes`
 * is the ChaCha20 key stream (RFC 8439, 32-bit block counter from 0) with
 * key = SHA-256(seed) and an all-zero 96-bit nonce. OpenSSL's `chacha20`
 * takes a 16-byte IV = 4-byte counter || 12-byte nonce, so all zeros matches.
 * Encrypting zeros yields the raw key stream.
 */
function kuboDeterministicBytes(size: number, seed: string): Uint8Array {
  const key = createHash('sha256').update(seed).digest();
  const cipher = createCipheriv('chacha20', key, Buffer.alloc(16));
  return new Uint8Array(cipher.update(Buffer.alloc(size)));
}

// The two IPIP-499 profiles as Kubo defines them (kubo test/cli/cid_profiles_test.go).
const UNIXFS_V0_2015: UnixfsProfile = { cidVersion: 0, rawLeaves: false, chunkSize: 262_144, maxChildrenPerNode: 174 };
const UNIXFS_V1_2025: UnixfsProfile = { cidVersion: 1, rawLeaves: true, chunkSize: 1_048_576, maxChildrenPerNode: 1024 };

describe('cidForBytes with the Kubo `--cid-version=1` profile', () => {
  // Each value below was printed by real Kubo; the comment names the file that records it.
  it.each([
    // ipfs/kubo test/cli/add_test.go: shortStringCidV1, the result of `ipfs add` of
    // "hello world" with Import.CidVersion=1 (also SmallFileCID in cid_profiles_test.go).
    ['hello world', 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e'],
    // ipfs/kubo test/sharness/t0114-gateway-subdomains/README.md:
    // `echo hello | ipfs add --cid-version 1 -Q` (note the trailing newline from echo).
    ['hello\n', 'bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am'],
    // ipfs/js-ipfs issue #3682: `echo "hello world" | ipfs add --cid-version 1 -q` on Kubo.
    ['hello world\n', 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4'],
    // ipfs/js-ipfs issue #2956 (`echo -n | ipfs add -nq --cid-version=1` on go-ipfs) and
    // py-ipfs-http-client issue #293 (`ipfs add --cid-version 1 empty`): the empty file.
    ['', 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'],
  ])('matches Kubo for %j', async (text, expected) => {
    expect(await cidForBytes(utf8(text))).toBe(expected);
  });

  it('gives a single-chunk file exactly 262144 bytes long a raw-codec CID', async () => {
    const cid = CID.parse(await cidForBytes(kuboDeterministicBytes(262_144, 'edge')));
    expect(cid.version).toBe(1);
    expect(cid.code).toBe(0x55);
  });

  it('splits 262145 bytes into two raw 256 KiB/1 B leaves under a dag-pb root', async () => {
    const data = kuboDeterministicBytes(262_145, 'two-chunks');
    const store = new MemoryBlockstore();
    const root = CID.parse(await cidForBytes(data, { blockstore: store }));
    expect(root.code).toBe(0x70);
    const first = await cidForBytes(data.subarray(0, 262_144));
    const second = await cidForBytes(data.subarray(262_144));
    expect(store.get(first)).toEqual(data.subarray(0, 262_144));
    expect(store.get(second)).toEqual(data.subarray(262_144));
    expect(store.size).toBe(3);
  });

  it('gives the same CID for a stream in odd-sized pieces as for the whole buffer', async () => {
    const data = kuboDeterministicBytes(700_001, 'stream');
    async function* pieces() {
      for (let at = 0; at < data.length; at += 99_991) yield data.subarray(at, at + 99_991);
    }
    expect(await cidForStream(pieces())).toBe(await cidForBytes(data));
  });

  it('changes the CID when one byte changes', async () => {
    const data = kuboDeterministicBytes(300_000, 'flip');
    const before = await cidForBytes(data);
    data[123_456] = (data[123_456] ?? 0) ^ 1;
    expect(await cidForBytes(data)).not.toBe(before);
  });
});

describe('the importer pipeline against Kubo multi-chunk vectors', () => {
  // All CIDs in this block come from ipfs/kubo test/cli/cid_profiles_test.go and
  // test/cli/add_test.go, produced by `ipfs add` on the bytes of kuboDeterministicBytes().
  // They pin chunking, raw-leaf DAG encoding and the balanced layout that the default
  // profile uses; KUBO_CIDV1_PROFILE differs from them only in the parameters shown.

  it('v1-2025: 1 MiB + 1 byte, raw leaves, CIDv1 dag-pb root (FileOverChunkSizeCID)', async () => {
    const data = kuboDeterministicBytes(1_048_577, 'chunk-v1-seed');
    expect(await cidForBytes(data, { profile: UNIXFS_V1_2025 })).toBe('bafybeigmix7t42i6jacydtquhet7srwvgpizfg7gjbq7627d35mjomtu64');
  });

  it('v1-2025: exactly 1 MiB is a single raw block (FileAtChunkSizeCID)', async () => {
    const data = kuboDeterministicBytes(1_048_576, 'chunk-v1-seed');
    expect(await cidForBytes(data, { profile: UNIXFS_V1_2025 })).toBe('bafkreiacndfy443ter6qr2tmbbdhadvxxheowwf75s6zehscklu6ezxmta');
  });

  it('v0-2015: 256 KiB + 1 byte splits at 262144 (FileOverChunkSizeCID)', async () => {
    const data = kuboDeterministicBytes(262_145, 'chunk-v0-seed');
    expect(await cidForBytes(data, { profile: UNIXFS_V0_2015 })).toBe('QmYyLxtzZyW22zpoVAtKANLRHpDjZtNeDjQdJrcQNWoRkJ');
  });

  it('v0-2015: 174 chunks fit one node, 175 force a second level (balanced, 174 links)', async () => {
    const atMax = kuboDeterministicBytes(174 * 262_144, 'v0-seed');
    expect(await cidForBytes(atMax, { profile: UNIXFS_V0_2015 })).toBe('QmUbBALi174SnogsUzLpYbD4xPiBSFANF4iztWCsHbMKh2');
    const overMax = kuboDeterministicBytes(175 * 262_144, 'v0-seed');
    expect(await cidForBytes(overMax, { profile: UNIXFS_V0_2015 })).toBe('QmepeWtdmS1hHXx1oZXsPUv6bMrfRRKfZcoPPU4eEfjnbf');
  });

  it('the default profile is the Kubo --cid-version=1 parameter set', () => {
    expect(KUBO_CIDV1_PROFILE).toEqual({ cidVersion: 1, rawLeaves: true, chunkSize: 262_144, maxChildrenPerNode: 174 });
  });
});

describe('canonicalCid and bytesMatchCid', () => {
  it('upgrades CIDv0 to the base32 CIDv1 of the same content', () => {
    expect(canonicalCid('QmYyLxtzZyW22zpoVAtKANLRHpDjZtNeDjQdJrcQNWoRkJ')).toMatch(/^bafybei/);
  });

  it('rejects garbage', async () => {
    expect(() => canonicalCid('not-a-cid')).toThrow(/not a valid CID/);
    await expect(cidForBytes('text' as unknown as Uint8Array)).rejects.toThrow(/Uint8Array/);
  });

  it('matches bytes to their CID and not to another', async () => {
    const cid = 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e';
    expect(await bytesMatchCid(utf8('hello world'), cid)).toBe(true);
    expect(await bytesMatchCid(utf8('hello world!'), cid)).toBe(false);
  });
});
