import { unzipSync } from 'fflate';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { LIMITS } from '../../../shared/src/domain/limits.js';
import { sniffMedia } from '../../../shared/src/domain/media.js';
import type { NewRow } from '../../../shared/src/repos/fruit-batch.repo.js';
import type { UploadedFile } from '../middleware/multipart.js';

/** One photo of a batch before it is stored: bytes to identify, or the reason its row fails at once. */
export interface BatchItem {
  file_name: string;
  bytes?: Buffer;
  type?: string;
  failed?: NonNullable<NewRow['failed']>;
}

/** Folders, macOS resource forks and hidden files are archive clutter, not photos. */
const isClutter = (name: string) => name.endsWith('/') || name.startsWith('__MACOSX/') || /(^|\/)\./.test(name);

/**
 * The photos inside a .zip. Sizes are read from the archive's directory before anything is
 * inflated: an entry over the per-photo limit fails its own row without being unpacked, and an
 * archive whose declared total passes the batch limit is refused whole (no zip bombs).
 */
function unzipPhotos(archive: UploadedFile, maxBytes: number): BatchItem[] {
  const tooLarge: string[] = [];
  let declared = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(archive.bytes, {
      filter: (f) => {
        if (isClutter(f.name)) return false;
        if (f.originalSize > LIMITS.fileBytes) return void tooLarge.push(f.name), false;
        declared += f.originalSize;
        if (declared > maxBytes) throw ERRORS.tooLarge(maxBytes);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(422, 'batch_archive_invalid', { field: 'archive', filename: archive.filename });
  }
  const items: BatchItem[] = Object.entries(entries).map(([name, bytes]) => ({ file_name: name, bytes: Buffer.from(bytes) }));
  for (const name of tooLarge) {
    items.push({ file_name: name, failed: { reason_code: 'batch_file_too_large', reason_params: { filename: name, limit_mb: LIMITS.fileBytes / 1_000_000 } } });
  }
  return items;
}

/** Sniff each photo: an empty or non-image file fails its own row; the batch goes on. */
function classify(item: BatchItem): BatchItem {
  if (item.failed || !item.bytes) return item;
  const filename = item.file_name;
  if (item.bytes.length > LIMITS.fileBytes) {
    return { file_name: filename, failed: { reason_code: 'batch_file_too_large', reason_params: { filename, limit_mb: LIMITS.fileBytes / 1_000_000 } } };
  }
  if (item.bytes.length === 0) return { file_name: filename, failed: { reason_code: 'file_empty', reason_params: { filename } } };
  const sniffed = sniffMedia(item.bytes);
  if (sniffed?.cls !== 'image') return { file_name: filename, failed: { reason_code: 'file_wrong_type', reason_params: { filename, expected: 'ảnh/image' } } };
  return { ...item, type: sniffed.type };
}

/**
 * A batch request's photos, in order: the `files` parts first, then the archive's entries.
 * At most one archive; at most `maxPhotos` photos in all (413 beyond); at least one (422).
 */
export function batchItems(files: UploadedFile[], limits: { maxPhotos: number; maxBytes: number }): BatchItem[] {
  const archives = files.filter((f) => f.field === 'archive');
  if (archives.length > 1) throw ERRORS.validation('archive', 'send at most one archive');
  const items: BatchItem[] = files.filter((f) => f.field === 'files').map((f) => ({ file_name: f.filename || 'photo', bytes: f.bytes }));
  if (archives[0]) items.push(...unzipPhotos(archives[0], limits.maxBytes));
  if (items.length === 0) throw new AppError(422, 'file_missing', { field: 'files' });
  if (items.length > limits.maxPhotos) throw new AppError(413, 'batch_too_many_photos', { limit: limits.maxPhotos });
  return items.map(classify);
}
