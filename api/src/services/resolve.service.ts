import { isNoLocation } from '../../../shared/src/domain/trace-code.js';
import { sanitizeName } from './trees.service.js';
import { decodeRecord, type TreeRecord } from '../../../shared/src/evidence/record.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { TreeByCodeRow, TreesRepo } from '../../../shared/src/repos/trees.repo.js';
import type { AnchorDescription } from './anchor-public.service.js';
import { SpeciesCatalog } from '../discovery/species-catalog.js';
import { placeOfGeohash, type Place, type Words } from '../../../shared/src/domain/vn-places.js';

/** The anchoring of a tree's record, as far as the public may know it: what it really is, in words. */
export type PublicAnchor = AnchorDescription;

/** `public`: the owner published the tree; the whole provenance record is shown. */
export interface PublicResolution {
  state: 'public';
  code: string;
  link: string;
  /** The tree, so the public page can show its public timeline. */
  tree_id: string;
  record: TreeRecord;
  record_cid: string;
  record_hash: string;
  /** Every photo the server holds for the tree; the anchored record may name fewer (spec 1 rule 8). */
  image_count: number;
  name: string | null;
  farm_id: string | null;
  /** False when the tree was enrolled without lat/lon: its geohash is the "no location" form `0000000`. */
  has_location: boolean;
  anchor: PublicAnchor | null;
  /** The species in words (the tree's current species, else the record's), null when not in the catalogue. */
  species_name: Words | null;
  /** Province and region from the code's coarse geohash; null without a location or outside Vietnam. */
  place: Place | null;
  /** The grower's public name, when the owner published one (never the username). */
  grower_name: string | null;
}

/** `restricted`: the code exists and the owner allows a minimum: no images, no coordinates. */
export interface RestrictedResolution {
  state: 'restricted';
  code: string;
  link: string;
  summary: { species: string | null; enrolled_on: string; record_hash: string; anchored: boolean };
}

/** `unknown`: a wrong code and a private one both end here, and nothing else is said. */
export interface UnknownResolution {
  state: 'unknown';
}

export type Resolution = PublicResolution | RestrictedResolution | UnknownResolution;

/** Codes are short; anything longer cannot be one, but is still looked up the same way (see decide). */
const MAX_CODE_CHARS = 64;
const UNKNOWN: UnknownResolution = Object.freeze({ state: 'unknown' });

/** What the resolve service uses. */
export interface ResolveDeps {
  db: Queryable;
  trees: Pick<TreesRepo, 'byCode' | 'imageCount' | 'setGrowerName' | 'growerName'>;
  /** The newest anchoring of an entity, in words (anchor-public.service's describeLatestAnchor). */
  latestAnchor: (db: Queryable, type: string, id: string) => Promise<AnchorDescription | null>;
  speciesCatalogPath: string;
}

/** The longest public name kept: a farm's or a family's name, not a paragraph. */
export const GROWER_NAME_MAX = 80;

async function publicView(deps: ResolveDeps, row: TreeByCodeRow, link: string, names: SpeciesNames): Promise<PublicResolution> {
  const { db } = deps;
  const count = await deps.trees.imageCount(db, row.individual_id);
  const record = decodeRecord(row.record_cbor);
  return {
    state: 'public',
    code: row.code,
    link,
    tree_id: row.individual_id,
    record,
    has_location: !isNoLocation(record.geohash),
    record_cid: row.record_cid,
    record_hash: row.record_hash,
    // Cleaned on the way out too, for names stored before enrolment cleaned them.
    image_count: count,
    name: row.name === null ? null : sanitizeName(row.name),
    farm_id: row.farm_id,
    anchor: await deps.latestAnchor(db, 'tree', row.individual_id),
    // The record keeps the species given at enrolment (often none: `unknown`); the tree's current
    // species is what the owner has said since.
    species_name: await names(row.species ?? record.species),
    place: placeOfGeohash(record.geohash),
    grower_name: row.public_name ? sanitizeName(row.public_name) || null : null,
  };
}

type SpeciesNames = (stored: string) => Promise<Words | null>;

/** A species as stored (catalogue id, or a Vietnamese or English name) in both languages, from the catalogue. */
function speciesNames(catalog: SpeciesCatalog): SpeciesNames {
  const key = (s: string) => s.normalize('NFC').trim().toLowerCase();
  return async (stored) => {
    const k = key(stored);
    const hit = (await catalog.body('en')).species.find((s) => [s.id, s.name_vi, s.name_en].some((n) => key(n) === k));
    return hit ? { vi: hit.name_vi, en: hit.name_en } : null;
  };
}

/**
 * The one decision behind `GET /api/resolve/{code}` and the page `/t/{code}`.
 *
 * Enumeration resistance: a wrong code and a private code run the same single indexed query
 * and return the same frozen `unknown` object, so the two routes cannot tell them apart by
 * body, status or (beyond noise) time. Malformed codes take that same path rather than a
 * shortcut, so the format check is not a timing oracle either.
 */
export function createResolveService(deps: ResolveDeps) {
  const { db, trees } = deps;
  const names = speciesNames(new SpeciesCatalog(deps.speciesCatalogPath));
  return {
    async decide(rawCode: string): Promise<Resolution> {
      const code = rawCode.trim().slice(0, MAX_CODE_CHARS);
      const row = await trees.byCode(db, code);
      if (!row || row.visibility === 'private') return UNKNOWN;
      const link = `/t/${encodeURIComponent(row.code)}`;
      if (row.visibility === 'public') return publicView(deps, row, link, names);
      const anchored = (await deps.latestAnchor(db, 'tree', row.individual_id))?.status === 'confirmed';
      return {
        state: 'restricted',
        code: row.code,
        link,
        summary: { species: row.species, enrolled_on: row.created_at.toISOString().slice(0, 10), record_hash: row.record_hash, anchored },
      };
    },

    /**
     * Set (or, with an empty name, withdraw) the name shoppers read as the grower on every
     * published tree of this account. Cleaned like a tree's name.
     */
    async setGrowerName(accountId: string, raw: string): Promise<{ public_name: string | null }> {
      // The route already refused more than GROWER_NAME_MAX characters; cleaning only shortens.
      const value = sanitizeName(raw) || null;
      await trees.setGrowerName(db, accountId, value);
      return { public_name: value };
    },

    /** The account's public name, null when none is published. */
    async growerName(accountId: string): Promise<{ public_name: string | null }> {
      return { public_name: await trees.growerName(db, accountId) };
    },
  };
}

export type ResolveService = ReturnType<typeof createResolveService>;
