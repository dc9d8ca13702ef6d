/**
 * The canonical tree record: the small document that is hashed and anchored
 * for each enrolled tree (spec section 1 rule 8). It is encoded as DAG-CBOR,
 * whose deterministic rules (shortest integer forms, map keys sorted by
 * length then bytes, no indefinite lengths, CIDs as tag 42) make the bytes a
 * pure function of the values: key order, and how the caller built the
 * object, do not matter.
 *
 * Shape (schema 1):
 *   { code, species, geohash, images: [CID link...], created_at, schema: 1 }
 *
 * Beyond what DAG-CBOR fixes, we normalise the values that have more than one
 * spelling, so that a third party rebuilding the record gets the same bytes:
 * - strings are Unicode NFC (Vietnamese species names can be typed composed
 *   or decomposed and look identical);
 * - created_at is `Date.toISOString()` form (see canonicalTimestamp);
 * - image CIDs are CIDv1 (a CIDv0 is upgraded; same content, one spelling).
 * Image order is kept as given: it is the order the photos were enrolled in.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import { create as createDigest } from 'multiformats/hashes/digest';
import { EvidenceFormatError, canonicalTimestamp, requireString, sha256, toHex } from './bytes.js';
import { canonicalCid } from './cid.js';

/** SHA-256 multihash code, and the schema version this module writes. */
const SHA2_256 = 0x12;
export const RECORD_SCHEMA = 1;

/**
 * Longest geohash accepted. The record is public, so it carries only a coarse
 * location; 7 characters (about 150 m) is what the traceability code uses.
 */
export const MAX_GEOHASH_LENGTH = 7;
const GEOHASH_RE = /^[0123456789bcdefghjkmnpqrstuvwxyz]+$/;

/** Record fields as a caller supplies them. */
export interface TreeRecordInput {
  readonly code: string;
  readonly species: string;
  readonly geohash: string;
  /** Image CIDs (strings or CID objects), in enrolment order. */
  readonly images: ReadonlyArray<string | CID>;
  readonly created_at: string | Date;
  readonly schema?: typeof RECORD_SCHEMA;
}

/** A normalised record, as decoded from its bytes (images as canonical CID strings). */
export interface TreeRecord {
  readonly code: string;
  readonly species: string;
  readonly geohash: string;
  readonly images: readonly string[];
  readonly created_at: string;
  readonly schema: typeof RECORD_SCHEMA;
}

/** An encoded record: its bytes, its CID (CIDv1 dag-cbor sha2-256) and hex SHA-256. */
export interface EncodedRecord {
  readonly record: TreeRecord;
  readonly bytes: Uint8Array;
  readonly cid: string;
  readonly hash: string;
}

const FIELDS = ['code', 'created_at', 'geohash', 'images', 'schema', 'species'];

/** Validates and normalises record input; throws {@link EvidenceFormatError}. */
export function normaliseRecord(input: TreeRecordInput): TreeRecord {
  if (typeof input !== 'object' || input === null) throw new EvidenceFormatError('record must be an object');
  const extra = Object.keys(input).filter((k) => !FIELDS.includes(k));
  if (extra.length > 0) throw new EvidenceFormatError(`record has unknown fields: ${extra.join(', ')}`);
  if (input.schema !== undefined && input.schema !== RECORD_SCHEMA) {
    throw new EvidenceFormatError(`unsupported record schema ${String(input.schema)}`);
  }
  const geohash = requireString(input.geohash, 'geohash').toLowerCase();
  if (geohash.length > MAX_GEOHASH_LENGTH || !GEOHASH_RE.test(geohash)) {
    throw new EvidenceFormatError(`geohash must be 1..${MAX_GEOHASH_LENGTH} geohash characters`);
  }
  return {
    code: requireString(input.code, 'code').normalize('NFC'),
    species: requireString(input.species, 'species').normalize('NFC'),
    geohash,
    images: normaliseImages(input.images),
    created_at: canonicalTimestamp(input.created_at),
    schema: RECORD_SCHEMA,
  };
}

function normaliseImages(images: unknown): string[] {
  if (!Array.isArray(images)) throw new EvidenceFormatError('images must be an array of CIDs');
  const out = images.map((c: unknown) => canonicalCid(c as string | CID));
  if (new Set(out).size !== out.length) throw new EvidenceFormatError('images lists the same CID twice');
  return out;
}

/** Encodes a record to canonical DAG-CBOR and derives its CID and hash. */
export function encodeRecord(input: TreeRecordInput): EncodedRecord {
  const record = normaliseRecord(input);
  const bytes = dagCbor.encode({ ...record, images: record.images.map((c) => CID.parse(c)) });
  return { record, bytes, ...identify(bytes) };
}

/** CID (dag-cbor, sha2-256, base32) and hex SHA-256 of encoded record bytes. */
export function identify(bytes: Uint8Array): { cid: string; hash: string } {
  const digest = sha256(bytes);
  const cid = CID.createV1(dagCbor.code, createDigest(SHA2_256, digest));
  return { cid: cid.toString(), hash: toHex(digest) };
}

/**
 * Decodes record bytes. Throws {@link EvidenceFormatError} unless the bytes
 * are exactly the canonical encoding of a valid schema-1 record (so a
 * re-ordered or padded encoding of the same values is refused, not accepted
 * under a different CID).
 */
export function decodeRecord(bytes: Uint8Array): TreeRecord {
  let raw: unknown;
  try {
    raw = dagCbor.decode(bytes);
  } catch (err) {
    throw new EvidenceFormatError(`record is not valid DAG-CBOR: ${(err as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new EvidenceFormatError('record is not a map');
  }
  const obj = raw as Record<string, unknown>;
  if (obj.schema !== RECORD_SCHEMA) throw new EvidenceFormatError(`unsupported record schema ${String(obj.schema)}`);
  if (!Array.isArray(obj.images) || obj.images.some((c) => CID.asCID(c) === null)) {
    throw new EvidenceFormatError('record images must be CID links');
  }
  const encoded = encodeRecord(obj as unknown as TreeRecordInput);
  if (Buffer.compare(encoded.bytes, bytes) !== 0) {
    throw new EvidenceFormatError('record bytes are not in canonical form');
  }
  return encoded.record;
}

/** Result of {@link verifyRecord}. */
export interface RecordVerdict {
  readonly ok: boolean;
  readonly reason?: string;
  readonly record?: TreeRecord;
  readonly cid?: string;
  readonly hash?: string;
}

/**
 * Checks record bytes against an expected CID and/or hash: decodes them
 * (canonical form required) and recomputes both identifiers.
 */
export function verifyRecord(bytes: Uint8Array, expected: { cid?: string; hash?: string }): RecordVerdict {
  let record: TreeRecord;
  try {
    record = decodeRecord(bytes);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const { cid, hash } = identify(bytes);
  if (expected.cid !== undefined && canonicalCidOrNull(expected.cid) !== cid) {
    return { ok: false, reason: `record CID is ${cid}, expected ${expected.cid}`, record, cid, hash };
  }
  if (expected.hash !== undefined && expected.hash.toLowerCase() !== hash) {
    return { ok: false, reason: `record hash is ${hash}, expected ${expected.hash}`, record, cid, hash };
  }
  return { ok: true, record, cid, hash };
}

function canonicalCidOrNull(value: string): string | null {
  try {
    return canonicalCid(value);
  } catch {
    return null;
  }
}
