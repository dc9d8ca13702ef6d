import { createHash, randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { assertPixels } from '../../../shared/src/domain/pixels.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { sniffMedia } from '../../../shared/src/domain/media.js';
import type { Lang } from '../../../shared/src/domain/messages.js';
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { ScanTokensRepo } from '../../../shared/src/repos/scan-tokens.repo.js';
import { SpeciesCatalog } from '../discovery/species-catalog.js';
import type { UploadedFile } from '../middleware/multipart.js';

/** How long a scan token can be confirmed: long enough to read a list on a phone in the field. */
export const SCAN_TOKEN_TTL_S = 600;
/** How many candidate species a scan offers. */
export const SCAN_TOP_K = 5;

/** One offered species and why it is offered. */
export interface SpeciesCandidate {
  species: string;
  /** `orchard`: the caller has enrolled trees of it; `catalog`: from the species catalogue. */
  source: 'orchard' | 'catalog';
  /** How many of the caller's own trees carry this species (0 for catalogue entries). */
  trees: number;
}

export interface ScanIssued {
  scan_token: string;
  species_guess: string;
  top_k: string[];
  candidates: SpeciesCandidate[];
  need_confirm: true;
  expires_at: string;
}

/** Species compare equal across case, composition and surrounding spaces. */
export const speciesKey = (s: string) => s.normalize('NFC').trim().toLowerCase();
const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');

async function checkImage(file: UploadedFile | undefined, maxPixels: number): Promise<void> {
  if (!file) throw new AppError(422, 'file_missing', { field: 'files' });
  if (file.bytes.length === 0) throw new AppError(422, 'file_empty', { field: 'files', filename: file.filename });
  if (sniffMedia(file.bytes)?.cls !== 'image') {
    throw new AppError(422, 'file_wrong_type', { field: 'files', filename: file.filename, expected: 'image' });
  }
  await assertPixels(file.bytes, maxPixels, 'files', file.filename);
  try {
    // A full (shrink-on-load) decode: headers alone pass for a photo cut off mid-upload.
    await sharp(file.bytes, { failOn: 'truncated' }).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
  } catch {
    throw new AppError(422, 'image_undecodable', { field: 'files', filename: file.filename });
  }
}

/** What the scan service uses. */
export interface ScanDeps {
  db: Queryable;
  scans: Pick<ScanTokensRepo, 'ownTreeSpecies' | 'insert' | 'sweepExpired' | 'liveOffer' | 'consume'>;
  speciesCatalogPath: string;
  /** The largest photo accepted, in pixels. */
  imageMaxPixels: number;
}

/**
 * Tree scans (spec 3, "Scan token (tree)"): a photo in, a single-use token and a short species
 * list out; the person confirms a species, and is sent on to `/api/identify` with it.
 *
 * The species list is a prior, not a visual guess: the caller's own enrolled species, most
 * trees first, then tree and fruit-crop species from the catalogue. That is honest about what
 * the service knows, and it always contains the species a farmer is most likely holding.
 */
export function createScanService(deps: ScanDeps) {
  const { db, scans } = deps;
  const catalog = new SpeciesCatalog(deps.speciesCatalogPath);

  /** The caller's own species, merged across spellings (in JS: SQL lower() is ASCII-only under the C locale). */
  async function orchardSpecies(scope: OwnerScope): Promise<SpeciesCandidate[]> {
    const merged = new Map<string, SpeciesCandidate>();
    for (const r of await scans.ownTreeSpecies(db, scope)) {
      const key = speciesKey(r.species);
      const hit = merged.get(key);
      if (hit) hit.trees += r.n;
      else merged.set(key, { species: r.species.normalize('NFC').trim(), source: 'orchard', trees: r.n });
    }
    return [...merged.values()].sort((a, b) => b.trees - a.trees);
  }

  async function rank(scope: OwnerScope, lang: Lang): Promise<SpeciesCandidate[]> {
    const out = await orchardSpecies(scope);
    const seen = new Set(out.map((o) => speciesKey(o.species)));
    for (const s of (await catalog.body(lang)).species) {
      if (out.length >= SCAN_TOP_K) break;
      // A name the owner already typed in another spelling (id, Vietnamese, English) is the same species.
      if (s.kind === 'animal' || [s.id, s.name_vi, s.name_en].some((n) => seen.has(speciesKey(n)))) continue;
      seen.add(speciesKey(s.id));
      out.push({ species: s.id, source: 'catalog', trees: 0 });
    }
    return out.slice(0, SCAN_TOP_K);
  }

  return {
    /** Check the photo, rank species and issue a token bound to the caller. */
    async issue(scope: OwnerScope, file: UploadedFile | undefined, lang: Lang): Promise<ScanIssued> {
      await checkImage(file, deps.imageMaxPixels);
      const candidates = await rank(scope, lang);
      const token = randomBytes(24).toString('base64url');
      const expires = new Date(Date.now() + SCAN_TOKEN_TTL_S * 1000);
      const topK = candidates.map((s) => s.species);
      await scans.insert(db, scope, { hash: hashToken(token), speciesGuess: topK[0] ?? null, topK, expiresAt: expires });
      // Old tokens are useless; clearing this owner's keeps the table small without a sweeper.
      await scans.sweepExpired(db, scope);
      return {
        scan_token: token,
        species_guess: topK[0] ?? '',
        top_k: topK,
        candidates,
        need_confirm: true,
        expires_at: expires.toISOString(),
      };
    },

    /** Consume the token when every condition of the spec's table holds; any failure leaves it unchanged. */
    async confirm(scope: OwnerScope, token: string, species: string): Promise<{ species: string }> {
      const hash = hashToken(token);
      const offered = await scans.liveOffer(db, hash, scope);
      // Wrong, used, expired and foreign tokens get one answer: which one it was is nobody's business.
      if (!offered) throw new AppError(400, 'scan_token_invalid', { field: 'scan_token' });
      const chosen = offered.find((s) => speciesKey(s) === speciesKey(species));
      if (!chosen) throw new AppError(400, 'scan_species_not_offered', { field: 'species', species: species.slice(0, 100) });
      // The guard repeats the conditions, so of two confirms racing on one token only one wins.
      if (!(await scans.consume(db, hash, scope))) throw new AppError(400, 'scan_token_invalid', { field: 'scan_token' });
      return { species: chosen };
    },
  };
}

export type ScanService = ReturnType<typeof createScanService>;
