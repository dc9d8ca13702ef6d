import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { LIMITS } from '../../../shared/src/domain/limits.js';
import { sniffMedia } from '../../../shared/src/domain/media.js';
import { pixelError } from '../../../shared/src/domain/pixels.js';
import type { NewRow } from '../../../shared/src/repos/fruit-batch.repo.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { readArchive, shownFileName, type ArchiveLimits } from './archive-reader.js';

/** One photo of a batch before it is stored: bytes to identify, or the reason its row fails at once. */
export interface BatchItem {
  file_name: string;
  bytes?: Buffer;
  type?: string;
  failed?: NonNullable<NewRow['failed']>;
}

export interface BatchLimits {
  maxPhotos: number;
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
  const entries = await readArchive(archive.bytes, archive.filename || 'archive.zip', { ...limits.archive, maxEntryBytes: LIMITS.fileBytes });
  return entries.map((e) => (e.refused ? { file_name: e.name, failed: e.refused } : { file_name: e.name, bytes: e.bytes }));
}

/** Sniff each photo: an empty, non-image or over-pixel file fails its own row; the batch goes on. */
async function classify(item: BatchItem, maxPixels: number): Promise<BatchItem> {
  if (item.failed || !item.bytes) return item;
  const filename = item.file_name;
  if (item.bytes.length > LIMITS.fileBytes) {
    return { file_name: filename, failed: { reason_code: 'batch_file_too_large', reason_params: { filename, limit_mb: LIMITS.fileBytes / 1_000_000 } } };
  }
  if (item.bytes.length === 0) return { file_name: filename, failed: { reason_code: 'file_empty', reason_params: { filename } } };
  const sniffed = sniffMedia(item.bytes);
  if (sniffed?.cls !== 'image') return { file_name: filename, failed: { reason_code: 'file_wrong_type', reason_params: { filename, expected: 'ảnh/image' } } };
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
  const items: BatchItem[] = files.filter((f) => f.field === 'files').map((f) => ({ file_name: shownFileName(f.filename) || 'photo', bytes: f.bytes }));
  if (archives[0]) items.push(...(await unzipPhotos(archives[0], limits)));
  if (items.length === 0) throw new AppError(422, 'file_missing', { field: 'files' });
  if (items.length > limits.maxPhotos) throw new AppError(413, 'batch_too_many_photos', { limit: limits.maxPhotos });
  const out: BatchItem[] = [];
  for (const item of items) out.push(await classify(item, limits.maxPixels));
  return out;
}
