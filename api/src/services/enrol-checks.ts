/**
 * What an enrolment must satisfy before anything is stored (every kind, every route):
 * - `name` and `species` are cleaned like a rename (no markup, control or bidi characters), since
 *   both are served by the public resolve JSON;
 * - `species`, when given, is a species of the catalogue for that kind (by id, Vietnamese or
 *   English name); otherwise 422 listing the closest catalogue names;
 * - at least {@link MIN_PHOTOS} photos per kind, and no photo twice: byte-identical photos are
 *   refused for every kind, near-identical ones are a warning where the spec asks for different
 *   angles (animals); both are listed, never thrown here.
 */
import sharp from 'sharp';
import { AppError } from '../../../shared/src/domain/errors.js';
import { assertPixels } from '../../../shared/src/domain/pixels.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { SpeciesCatalog } from '../discovery/species-catalog.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { sanitizeName } from './trees.service.js';
import { createHash } from 'node:crypto';

/** Fewest photos an enrolment of each kind takes (spec: an animal needs 3 angles). */
export const MIN_PHOTOS: Readonly<Record<Kind, number>> = { tree: 1, fruit: 1, animal: 3 };
/** Catalogue kinds a species of each enrolment kind may have (fruit crops are trees too). */
const SPECIES_KINDS: Readonly<Record<Kind, readonly string[]>> = { tree: ['tree', 'fruit'], fruit: ['fruit'], animal: ['animal'] };
/** Mean absolute difference (0–255) of 16×16 grey thumbnails under which two photos are one view. */
const NEAR_DUPLICATE = 3;

/** One photo refused before storing; same shape as the worker's (workers/src/handlers/enroll-photos.ts). */
export interface PhotoRefusal {
  index: number;
  filename: string;
  reasons: string[];
  warning: boolean;
}

const key = (s: string) => s.normalize('NFC').trim().toLowerCase();

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

async function thumb(bytes: Buffer): Promise<Buffer | null> {
  return sharp(bytes)
    .greyscale()
    .resize(16, 16, { fit: 'fill' })
    .raw()
    .toBuffer()
    .catch(() => null);
}

const meanDiff = (a: Buffer, b: Buffer) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;

/** Creates the checker; the catalogue file is read once and kept. */
export function createEnrolChecks(catalogPath: string, maxPixels: number) {
  const catalog = new SpeciesCatalog(catalogPath);

  async function checkSpecies(kind: Kind, species: string): Promise<void> {
    const list = (await catalog.body('en')).species.filter((s) => SPECIES_KINDS[kind].includes(s.kind));
    // An unreadable catalogue must not stop enrolment: /api/species/catalog already says it is empty.
    if (!list.length) return;
    const k = key(species);
    if (list.some((s) => [s.id, s.name_vi, s.name_en].some((n) => key(n) === k))) return;
    const close = list
      .map((s) => ({ id: s.id, d: Math.min(...[s.id, s.name_vi, s.name_en].map((n) => editDistance(key(n), k))) }))
      .sort((a, b) => a.d - b.d || a.id.localeCompare(b.id))
      .slice(0, 3)
      .map((s) => s.id);
    throw new AppError(422, 'species_unknown', {
      field: 'species',
      species: species.slice(0, 100),
      close: close.join(', '),
      reason: 'not_in_catalogue',
    });
  }

  /**
   * Duplicates, every one of them: a byte-identical photo is always refused (it adds nothing), a
   * near-identical one is a warning the owner may accept (animals, which need different angles).
   * The worker answers these together with its own quality refusals, in one 422.
   */
  async function duplicates(kind: Kind, files: UploadedFile[]): Promise<PhotoRefusal[]> {
    const out: PhotoRefusal[] = [];
    const seen = new Set<string>();
    const thumbs: Buffer[] = [];
    for (const [index, f] of files.entries()) {
      const h = createHash('sha256').update(f.bytes).digest('hex');
      if (seen.has(h)) {
        out.push({ index, filename: f.filename, reasons: ['identical'], warning: false });
        continue;
      }
      seen.add(h);
      // The near-duplicate thumbnails below decode the photo: its pixels are capped first.
      await assertPixels(f.bytes, maxPixels, 'files', f.filename);
      if (kind !== 'animal') continue;
      const t = await thumb(f.bytes);
      // Undecodable photos are refused later, with their own reason.
      if (!t) continue;
      if (thumbs.some((o) => meanDiff(o, t) < NEAR_DUPLICATE))
        out.push({ index, filename: f.filename, reasons: ['near_identical'], warning: true });
      thumbs.push(t);
    }
    return out;
  }

  function checkCount(kind: Kind, n: number): void {
    if (n > 0 && n < MIN_PHOTOS[kind]) {
      throw new AppError(422, 'photos_too_few', { field: 'files', kind, min: MIN_PHOTOS[kind], got: n, reason: 'too_few' });
    }
  }

  return {
    /**
     * Check an enrolment: attributes with name and species cleaned, and the duplicate photos found
     * (answered by the worker with the quality refusals, so one answer names every photo).
     */
    async check(
      kind: Kind,
      attrs: Record<string, unknown>,
      files: UploadedFile[],
      kept = 0,
    ): Promise<{ attrs: Record<string, unknown>; refused: PhotoRefusal[] }> {
      const out = { ...attrs };
      for (const field of ['name', 'species'] as const) {
        if (typeof out[field] !== 'string') continue;
        const clean = sanitizeName(out[field] as string);
        if (clean) out[field] = clean;
        else delete out[field];
      }
      if (typeof out.species === 'string') await checkSpecies(kind, out.species);
      checkCount(kind, files.length + kept);
      return { attrs: out, refused: await duplicates(kind, files) };
    },
  };
}

export type EnrolChecks = ReturnType<typeof createEnrolChecks>;
