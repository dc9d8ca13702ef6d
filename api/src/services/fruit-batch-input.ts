import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { LIMITS } from '../../../shared/src/domain/limits.js';
import { sniffMedia } from '../../../shared/src/domain/media.js';
import { pixelError } from '../../../shared/src/domain/pixels.js';
import type { NewRow } from '../../../shared/src/repos/fruit-batch.repo.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { readArchive, shownFileName, unsafeEntryName, type ArchiveLimits } from './archive-reader.js';

/** One photo of a batch before it is stored: bytes to identify, or the reason its row fails at once. */
export interface BatchItem {
  file_name: string;
  bytes?: Buffer;
  type?: string;
  failed?: NonNullable<NewRow['failed']>;
}

export interface BatchLimits {
  maxPhotos: number;
  /** Most views of one fruit; a fruit with more fails its own row. */
  maxViews: number;
  maxBytes: number;
  maxPixels: number;
  archive: Omit<ArchiveLimits, 'maxEntryBytes'>;
}

/**
 * The photos inside a .zip, read by the streaming reader (archive-reader.ts): every entry that is
 * not folder clutter gets a row, an entry with an unsafe name or over the per-photo limit a
 * refused one; a hostile archive as a whole is 413/422.
 */
async function unzipPhotos(archive: UploadedFile, limits: BatchLimits): Promise<BatchItem[]> {
  const entries = await readArchive(archive.bytes, archive.filename || 'archive.zip', {
    ...limits.archive,
    maxEntryBytes: LIMITS.fileBytes,
  });
  return entries.map((e) => (e.refused ? { file_name: e.name, failed: e.refused } : { file_name: e.name, bytes: e.bytes }));
}

/** Sniff each photo: an empty, non-image or over-pixel file fails its own row; the batch goes on. */
async function classify(item: BatchItem, maxPixels: number): Promise<BatchItem> {
  if (item.failed || !item.bytes) return item;
  const filename = item.file_name;
  if (item.bytes.length > LIMITS.fileBytes) {
    return {
      file_name: filename,
      failed: { reason_code: 'batch_file_too_large', reason_params: { filename, limit_mb: LIMITS.fileBytes / 1_000_000 } },
    };
  }
  if (item.bytes.length === 0) return { file_name: filename, failed: { reason_code: 'file_empty', reason_params: { filename } } };
  const sniffed = sniffMedia(item.bytes);
  if (sniffed?.cls !== 'image')
    return { file_name: filename, failed: { reason_code: 'file_wrong_type', reason_params: { filename, expected: 'ảnh/image' } } };
  const tooMany = await pixelError(item.bytes, maxPixels, 'files', filename);
  if (tooMany) return { file_name: filename, failed: { reason_code: tooMany.code, reason_params: tooMany.params } };
  return { ...item, type: sniffed.type };
}

/**
 * A batch request's photos, in order: the `files` parts first, then the archive's entries.
 * At most one archive; at most `maxPhotos` photos in all (413 beyond); at least one (422).
 */
export async function batchItems(files: UploadedFile[], limits: BatchLimits): Promise<BatchItem[]> {
  const archives = files.filter((f) => f.field === 'archive');
  if (archives.length > 1) throw ERRORS.validation('archive', 'send at most one archive');
  const items: BatchItem[] = files
    .filter((f) => f.field === 'files')
    .map((f) => ({ file_name: shownFileName(f.filename) || 'photo', bytes: f.bytes }));
  if (archives[0]) items.push(...(await unzipPhotos(archives[0], limits)));
  if (items.length === 0) throw new AppError(422, 'file_missing', { field: 'files' });
  if (items.length > limits.maxPhotos) throw new AppError(413, 'batch_too_many_photos', { limit: limits.maxPhotos });
  const out: BatchItem[] = [];
  for (const item of items) out.push(await classify(item, limits.maxPixels));
  return out;
}

/**
 * One fruit of a batch: its name and its views, in the order they came. `grouped` is false for a
 * photo that names no fruit, which is its own fruit named by its file (a batch before views).
 */
export interface BatchFruit {
  name: string;
  grouped: boolean;
  views: BatchItem[];
  /** Set when the fruit cannot be identified at all (too many views); its views are not stored. */
  failed?: NonNullable<NewRow['failed']>;
}

/** Separates a fruit's name from the rest of a file name: `fruit-17__cam2.jpg` is a view of `fruit-17`. */
export const VIEW_SEPARATOR = '__';

/**
 * The fruit a photo is a view of, or null when it names none (it is then its own fruit):
 * - in a folder of the archive: the folder (`fruit-17/a.jpg` → `fruit-17`; `crate-3/fruit-17/a.jpg` → `crate-3/fruit-17`);
 * - otherwise (a `files` part, or an entry at the archive's top): the part of the file name before
 *   the first `__`, when there is a part before and after it (`fruit-17__cam2.jpg` → `fruit-17`).
 * A name that is unsafe as a path (`../x.jpg`, `/etc/x.jpg`) names no fruit.
 */
export function fruitOf(name: string): string | null {
  if (unsafeEntryName(name)) return null;
  const slash = name.lastIndexOf('/');
  if (slash > 0) return name.slice(0, slash);
  if (slash === 0) return null;
  const cut = name.indexOf(VIEW_SEPARATOR);
  return cut > 0 && cut + VIEW_SEPARATOR.length < name.length ? name.slice(0, cut) : null;
}

/**
 * The photos grouped into fruit, in the order each fruit first appears. Photos naming the same
 * fruit are its views wherever they came from (`files` parts and archive entries alike); a fruit
 * with more than `maxViews` views fails its own row, the batch goes on. An entry refused for its
 * name never joins a fruit: its name cannot be trusted to say which.
 */
export function batchFruit(items: BatchItem[], maxViews: number): BatchFruit[] {
  const out: BatchFruit[] = [];
  const byName = new Map<string, BatchFruit>();
  for (const item of items) {
    const name = item.failed?.reason_code === 'archive_entry_unsafe_name' ? null : fruitOf(item.file_name);
    if (name === null) {
      out.push({ name: item.file_name, grouped: false, views: [item] });
      continue;
    }
    let fruit = byName.get(name);
    if (!fruit) {
      fruit = { name, grouped: true, views: [] };
      byName.set(name, fruit);
      out.push(fruit);
    }
    fruit.views.push(item);
  }
  for (const f of out) {
    if (f.views.length > maxViews)
      f.failed = { reason_code: 'batch_fruit_too_many_views', reason_params: { fruit: f.name, got: f.views.length, max: maxViews } };
  }
  return out;
}
