import { AppError } from '../../../shared/src/domain/errors.js';
import type { Lang } from '../../../shared/src/domain/messages.js';
import { sniffMedia } from '../../../shared/src/domain/media.js';
import { assertPixels } from '../../../shared/src/domain/pixels.js';
import {
  loadCatalogue,
  loadProductStore,
  type BannedCatalogue,
  type BannedHit,
  type ProductStore,
  type Scope,
  type Severity,
  type Substance,
} from '../../../shared/src/domain/care/catalogue.js';
import { decideMatch, type MatchResult, type OcrOutcome } from '../../../shared/src/domain/care/match-result.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { OcrEngine } from '../../../shared/src/ports/ocr.port.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createWorkSlots } from './work-slots.js';

/** A suggestion: one label photo takes seconds to read. */
const OCR_RETRY_S = 5;

/** A substance row as the API shows it (a found one also says which words matched). */
export type SubstanceView = Substance & { matched?: string };

export interface BannedQuery {
  q?: string;
  scope?: Scope;
  severity?: Severity;
}

const keep = (q: BannedQuery) => (s: Substance) => (!q.scope || s.scopes.includes(q.scope)) && (!q.severity || s.severity === q.severity);

/**
 * Care data (banned/restricted catalogue, product store) and product matching. The data files
 * are read on first use and kept once read; a file that cannot be read is tried again on the
 * next request, and meanwhile the catalogue is "unavailable" (banned_check), never a 500.
 */
export interface CareDeps {
  /** The care data files (CARE_BANNED_FILE, CARE_PRODUCTS_FILE). */
  files: { banned: string; products: string };
  ocr: Pick<OcrEngine, 'read'>;
  /** IMAGE_MAX_PIXELS, OCR_MAX_CONCURRENT, OCR_MAX_PER_ACCOUNT. */
  limits: { imageMaxPixels: number; ocrMaxConcurrent: number; ocrMaxPerAccount: number };
  logger: Pick<Logger, 'warn'>;
}

export function createCareService({ files, ocr, limits, logger }: CareDeps) {
  const bannedPath = files.banned;
  const productsPath = files.products;
  // OCR runs a tesseract process per photo on this machine: bounded so a few huge photos cannot starve the API.
  const ocrSlots = createWorkSlots({
    total: limits.ocrMaxConcurrent,
    perAccount: limits.ocrMaxPerAccount,
    retryAfterS: OCR_RETRY_S,
    codes: { total: 'ocr_busy', account: 'ocr_busy_account' },
  });
  let catalogue: BannedCatalogue | null = null;
  let products: ProductStore | null = null;

  async function getCatalogue(): Promise<BannedCatalogue | null> {
    catalogue ??= await loadCatalogue(bannedPath);
    if (!catalogue) logger.warn({ path: bannedPath }, 'banned catalogue unavailable');
    return catalogue;
  }
  async function getProducts(): Promise<ProductStore | null> {
    products ??= await loadProductStore(productsPath);
    return products;
  }

  /** What OCR read from the photo (only asked for when no text was typed). */
  async function readPhoto(file: UploadedFile, account: string): Promise<OcrOutcome> {
    const sniffed = file.bytes.length ? sniffMedia(file.bytes) : null;
    if (!sniffed || sniffed.cls !== 'image') {
      throw new AppError(422, file.bytes.length ? 'file_wrong_type' : 'file_empty', {
        field: 'files',
        filename: file.filename,
        expected: 'ảnh/image',
      });
    }
    // Before OCR decodes anything: a small PNG can declare 16000×16000 pixels.
    await assertPixels(file.bytes, limits.imageMaxPixels, 'files', file.filename);
    return ocrSlots.run(account, () => ocr.read(file.bytes));
  }

  /** Match typed text, or else what OCR reads from the photo of `account` (who holds the OCR slot). */
  async function match(text: string | undefined, file: UploadedFile | undefined, lang: Lang, account = 'anonymous'): Promise<MatchResult> {
    const typed = text?.trim() ? text : undefined;
    const ocr = !typed && file ? await readPhoto(file, account) : undefined;
    return decideMatch({ text: typed, ocr, catalogue: await getCatalogue(), products: await getProducts(), lang });
  }

  return {
    getCatalogue,
    getProducts,
    match,

    /** Substances banned in `text` (for the care log), or null when the catalogue is unavailable. */
    async bannedIn(text: string): Promise<BannedHit[] | null> {
      const cat = await getCatalogue();
      return cat ? cat.lookup(text) : null;
    },

    /**
     * The catalogue filtered by scope and severity; with a non-empty `q`, the rows found in that
     * text by the very lookup of POST /api/care/match (whose whole answer comes along as `match`).
     */
    async banned(q: BannedQuery, lang: Lang) {
      const cat = await getCatalogue();
      const text = q.q?.trim();
      if (text) {
        const result = await match(text, undefined, lang);
        const rows: SubstanceView[] = result.banned.filter(keep(q));
        return { available: cat !== null, version: cat?.version ?? null, count: rows.length, substances: rows, match: result };
      }
      const rows: SubstanceView[] = cat ? cat.substances.filter(keep(q)) : [];
      return { available: cat !== null, version: cat?.version ?? null, count: rows.length, substances: rows };
    },

    async products(scope: Scope | undefined, category: string | undefined) {
      const store = await getProducts();
      const rows = (store?.products ?? []).filter(
        (p) => (!scope || p.scope === scope) && (!category || p.category === category.trim().toLowerCase()),
      );
      return { available: store !== null, count: rows.length, products: rows };
    },
  };
}

export type CareService = ReturnType<typeof createCareService>;
