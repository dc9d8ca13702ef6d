/**
 * Canonical records for the evidence that the spec keeps server-side by default: fruit and farm
 * boundaries. Same rules as the tree record (record.ts): DAG-CBOR, so the bytes are a pure
 * function of the values; strings NFC; timestamps in `toISOString()` form. Coordinates are
 * integer microdegrees, because floats have more than one reasonable spelling in other languages'
 * encoders and a verifier must be able to rebuild the exact bytes.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import { canonicalTimestamp } from './bytes.js';
import { canonicalCid } from './cid.js';
import { identify } from './record.js';

export const SIDE_RECORD_SCHEMA = 1;

export interface FruitRecordInput {
  fruit_id: string;
  /** Traceability code of the tree the fruit hangs on, when it was enrolled against one. */
  tree_code: string | null;
  images: readonly string[];
  created_at: string | Date;
}

/** A GeoJSON Polygon: rings of [lon, lat] positions, the first ring the outline. */
export interface Polygon {
  type: 'Polygon';
  coordinates: number[][][];
}

export interface BoundaryRecordInput {
  farm_id: string;
  boundary: Polygon;
  created_at: string | Date;
}

export interface EncodedSideRecord {
  bytes: Uint8Array;
  cid: string;
  hash: string;
}

const micro = (deg: number) => Math.round(deg * 1e6);

export function encodeFruitRecord(input: FruitRecordInput): EncodedSideRecord {
  const bytes = dagCbor.encode({
    kind: 'fruit',
    fruit_id: input.fruit_id.toLowerCase(),
    tree_code: input.tree_code,
    images: [...new Set(input.images.map((c) => canonicalCid(c)))].map((c) => CID.parse(c)),
    created_at: canonicalTimestamp(input.created_at),
    schema: SIDE_RECORD_SCHEMA,
  });
  return { bytes, ...identify(bytes) };
}

export function encodeBoundaryRecord(input: BoundaryRecordInput): EncodedSideRecord {
  const bytes = dagCbor.encode({
    kind: 'farm_boundary',
    farm_id: input.farm_id.normalize('NFC'),
    rings_microdeg: input.boundary.coordinates.map((ring) => ring.map(([lon, lat]) => [micro(lon!), micro(lat!)])),
    created_at: canonicalTimestamp(input.created_at),
    schema: SIDE_RECORD_SCHEMA,
  });
  return { bytes, ...identify(bytes) };
}

/** Decoded side record, for the verifier and tests. */
export function decodeSideRecord(bytes: Uint8Array): Record<string, unknown> {
  return dagCbor.decode(bytes) as Record<string, unknown>;
}

/** Result of {@link verifySideRecord}: the image CIDs it names (none for a boundary). */
export interface SideRecordVerdict {
  ok: boolean;
  reason?: string;
  kind?: string;
  images?: string[];
  cid?: string;
  hash?: string;
  /** The identifiers the record names (fruit_id and tree_code, or farm_id), for the entity check. */
  ids?: Record<string, string>;
}

/** Whether record bytes are a side record (fruit or farm boundary) rather than a tree record. */
export function isSideRecord(bytes: Uint8Array): boolean {
  try {
    const v = decodeSideRecord(bytes);
    return v.kind === 'fruit' || v.kind === 'farm_boundary';
  } catch {
    return false;
  }
}

/**
 * Checks side-record bytes against an expected CID and hash: they must decode, be canonical
 * (re-encoding gives the same bytes), carry a known kind and schema, and hash to both identifiers.
 */
export function verifySideRecord(bytes: Uint8Array, expected: { cid: string; hash: string }): SideRecordVerdict {
  let v: Record<string, unknown>;
  try {
    v = decodeSideRecord(bytes);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  if ((v.kind !== 'fruit' && v.kind !== 'farm_boundary') || v.schema !== SIDE_RECORD_SCHEMA)
    return { ok: false, reason: 'not a fruit or farm-boundary record of schema 1' };
  const reencoded = dagCbor.encode(v);
  if (reencoded.length !== bytes.length || reencoded.some((b, i) => b !== bytes[i]))
    return { ok: false, reason: 'record bytes are not canonical DAG-CBOR' };
  const images = Array.isArray(v.images) ? v.images.map((c) => canonicalCid(c as CID)) : [];
  const { cid, hash } = identify(bytes);
  const ids = Object.fromEntries(
    ['fruit_id', 'tree_code', 'farm_id'].filter((k) => typeof v[k] === 'string').map((k) => [k, v[k] as string]),
  );
  const base = { kind: v.kind, images, cid, hash, ids };
  if (canonicalCid(expected.cid) !== cid) return { ...base, ok: false, reason: `record CID is ${cid}, expected ${expected.cid}` };
  if (expected.hash.toLowerCase() !== hash) return { ...base, ok: false, reason: `record hash is ${hash}, expected ${expected.hash}` };
  return { ...base, ok: true };
}
