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
