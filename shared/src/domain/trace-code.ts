/**
 * Traceability codes (spec section 1 rule 7): `<CODE_PREFIX>-<geohash7>-<8 characters>`.
 *
 * - The prefix is a fixed service setting (CODE_PREFIX, 2-6 capital letters).
 * - geohash7 is the 7-character geohash (about 150 m) of the tree's coarse location, in the
 *   standard lowercase geohash alphabet, which already leaves out a, i, l and o. A tree enrolled
 *   without lat/lon gets {@link NO_LOCATION_GEOHASH}, `0000000`, so the code keeps its shape and
 *   says plainly "no location": it is the corner cell at (-90°, -180°), where no tree grows, and
 *   the resolve page spells it out. (Before 2026-11 it was `s000000`, the point (0°, 0°), which
 *   read as a real place.)
 * - The 8 characters come from {@link CODE_ALPHABET} (capitals and digits without 0, O, 1 or I,
 *   so a code read aloud or copied from a label cannot be misheard) and are a hash of the tree id
 *   and the geohash: the same tree at the same coarse location always gets the same code.
 * - On the rare collision with another tree's code the caller retries with `attempt + 1`.
 *
 * The same string is written into the tree's canonical (anchored) record.
 */
import { createHash } from 'node:crypto';
import ngeohash from 'ngeohash';

/** 32 symbols, 5 bits each: no 0/O, no 1/I. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
/** Geohash used when a tree was enrolled without coordinates: the explicit "no location" form. */
export const NO_LOCATION_GEOHASH = '0000000';
/** The earlier no-location geohash, (0°, 0°); codes minted with it are still read as "no location". */
export const LEGACY_NO_LOCATION_GEOHASH = 's000000';

/** True when a code's or record's geohash means "enrolled without a location". */
export const isNoLocation = (geohash: string) => geohash === NO_LOCATION_GEOHASH || geohash === LEGACY_NO_LOCATION_GEOHASH;
export const GEOHASH_PRECISION = 7;
const SUFFIX_LENGTH = 8;

/** Full-code shape, for validating path parameters before any lookup. */
export const TRACE_CODE_RE = /^[A-Z]{2,6}-[0-9b-hjkmnp-z]{7}-[2-9A-HJ-NP-Z]{8}$/;

/** 7-character geohash of a location, or the documented fallback when either coordinate is missing. */
export function coarseGeohash(lat: number | null | undefined, lon: number | null | undefined): string {
  if (typeof lat !== 'number' || typeof lon !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lon)) {
    return NO_LOCATION_GEOHASH;
  }
  return ngeohash.encode(lat, lon, GEOHASH_PRECISION);
}

/** The 8-character suffix: SHA-256 of (tree id, geohash, attempt), read 5 bits per symbol. */
export function codeSuffix(treeId: string, geohash: string, attempt = 0): string {
  const digest = createHash('sha256').update(`markless.trace-code/v1\n${treeId}\n${geohash}\n${attempt}`).digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 5)) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = SUFFIX_LENGTH - 1; i >= 0; i--) out += CODE_ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)];
  return out;
}

/** Inputs of {@link traceCode}. */
export interface TraceCodeInput {
  prefix: string;
  treeId: string;
  lat?: number | null;
  lon?: number | null;
  /** 0 first; the caller increments it when the code is already taken by another tree. */
  attempt?: number;
}

/** Builds a traceability code; deterministic in all of its inputs. */
export function traceCode(input: TraceCodeInput): { code: string; geohash: string } {
  const geohash = coarseGeohash(input.lat, input.lon);
  return { code: `${input.prefix}-${geohash}-${codeSuffix(input.treeId, geohash, input.attempt ?? 0)}`, geohash };
}
