/**
 * Content identifiers for images and videos, computed exactly as Kubo's
 * `ipfs add --cid-version=1` computes them, so that anyone can re-check an
 * image with stock IPFS tooling and no help from us.
 *
 * Kubo with `--cid-version=1` (and no other flags) means:
 * - fixed-size chunker, 262144-byte chunks (`size-262144`);
 * - balanced DAG layout, at most 174 links per node;
 * - raw leaves (CIDv1 switches `--raw-leaves` on);
 * - a file that fits in one chunk is not wrapped at all: its CID is the raw
 *   leaf itself (`bafkrei...`); larger files get a dag-pb root (`bafybei...`);
 * - sha2-256, printed in base32.
 *
 * The hashing is delegated to ipfs-unixfs-importer (the reference JS
 * implementation); this module only pins its options to Kubo's and never
 * buffers a whole file, so an 80 MB video is hashed chunk by chunk.
 */
import { importer } from 'ipfs-unixfs-importer';
import { fixedSize } from 'ipfs-unixfs-importer/chunker';
import { balanced } from 'ipfs-unixfs-importer/layout';
import { CID } from 'multiformats/cid';
import { EvidenceFormatError } from './bytes.js';

/** The block sink the importer writes to (only `put` is needed). */
export type BlockSink = Parameters<typeof importer>[1];

/** Bytes to hash: one buffer, or chunks from a stream (e.g. `fs.createReadStream`). */
export type ByteSource = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

/** The UnixFS import parameters that decide a file's CID. */
export interface UnixfsProfile {
  readonly cidVersion: 0 | 1;
  readonly rawLeaves: boolean;
  readonly chunkSize: number;
  readonly maxChildrenPerNode: number;
}

/** What Kubo does for `ipfs add --cid-version=1`: the profile this service uses. */
export const KUBO_CIDV1_PROFILE: UnixfsProfile = Object.freeze({
  cidVersion: 1,
  rawLeaves: true,
  chunkSize: 262_144,
  maxChildrenPerNode: 174,
});

/** Options for {@link cidForBytes} and {@link cidForStream}. */
export interface CidOptions {
  /** Where to keep the blocks; default: discard them (like `ipfs add --only-hash`). */
  readonly blockstore?: BlockSink;
  /** Import parameters; default {@link KUBO_CIDV1_PROFILE}. Other profiles exist for tests and interop. */
  readonly profile?: UnixfsProfile;
}

/** A sink that keeps nothing: hashing an 80 MB video should not hold 80 MB of blocks. */
const DISCARD: BlockSink = { put: async (cid) => cid };

/**
 * A minimal in-memory block store (CID string → block bytes).
 * Useful to inspect the DAG, or to export it later as a CAR file.
 */
export class MemoryBlockstore {
  private readonly blocks = new Map<string, Uint8Array>();

  /** Stores a block under its CID (the importer calls this). */
  put = async (cid: CID, block: Uint8Array): Promise<CID> => {
    this.blocks.set(cid.toString(), block);
    return cid;
  };

  /** The block for `cid`, or undefined. */
  get(cid: CID | string): Uint8Array | undefined {
    return this.blocks.get(cid.toString());
  }

  /** Number of distinct blocks held. */
  get size(): number {
    return this.blocks.size;
  }
}

/**
 * CID of one file given as an in-memory buffer.
 * @returns the CID string, base32 for CIDv1 (`bafk...` or `bafy...`).
 */
export async function cidForBytes(bytes: Uint8Array, options: CidOptions = {}): Promise<string> {
  if (!(bytes instanceof Uint8Array)) throw new EvidenceFormatError('cidForBytes needs a Uint8Array');
  return cidForStream(bytes, options);
}

/**
 * CID of one file given as a stream of chunks (any chunk sizes; they are
 * re-chunked to the profile's fixed size).
 */
export async function cidForStream(source: ByteSource, options: CidOptions = {}): Promise<string> {
  const profile = options.profile ?? KUBO_CIDV1_PROFILE;
  const entries = importer([{ content: source }], options.blockstore ?? DISCARD, {
    cidVersion: profile.cidVersion,
    rawLeaves: profile.rawLeaves,
    chunker: fixedSize({ chunkSize: profile.chunkSize }),
    layout: balanced({ maxChildrenPerNode: profile.maxChildrenPerNode }),
    reduceSingleLeafToSelf: true,
    wrapWithDirectory: false,
  });
  let root: CID | undefined;
  for await (const entry of entries) root = entry.cid;
  if (root === undefined) throw new Error('ipfs-unixfs-importer produced no root');
  return root.toString();
}

/**
 * Parses a CID string and returns its canonical form (CIDv1, base32), or
 * throws {@link EvidenceFormatError}. CIDv0 (`Qm...`) is upgraded to v1 so
 * that two spellings of the same content compare equal.
 */
export function canonicalCid(value: string | CID): string {
  try {
    const cid = typeof value === 'string' ? CID.parse(value) : CID.asCID(value);
    if (!cid) throw new Error('not a CID');
    return cid.toV1().toString();
  } catch {
    throw new EvidenceFormatError(`not a valid CID: ${String(value).slice(0, 80)}`);
  }
}

/** True when `bytes` hash (Kubo CIDv1 profile) to the same content as `expected`. */
export async function bytesMatchCid(source: ByteSource, expected: string): Promise<boolean> {
  const want = canonicalCid(expected);
  return (await cidForStream(source)) === want;
}
