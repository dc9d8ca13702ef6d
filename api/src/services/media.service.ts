import type { Container } from '../../../shared/src/container.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { sniffMedia, type MediaClass } from '../../../shared/src/domain/media.js';
import { storeBlob } from '../../../shared/src/evidence/store/blob-registry.js';
import type { UploadedFile } from '../middleware/multipart.js';

export interface StoredMedia {
  cid: string;
  filename: string;
  contentType: string;
  size: number;
}

/**
 * Uploads into the content-addressed store, Supabase storage-api style: write the blobs, run the
 * work that references them, and if that work fails, delete the blobs this request created that
 * nothing references. A failed request leaves neither rows nor orphaned blobs.
 */
export function createMediaService(c: Container) {
  const { db, blobs } = c;

  function check(files: UploadedFile[], cls: MediaClass, field: string) {
    if (files.length === 0) throw new AppError(422, 'file_missing', { field });
    return files.map((f) => {
      if (f.bytes.length === 0) throw new AppError(422, 'file_empty', { field, filename: f.filename });
      const sniffed = sniffMedia(f.bytes);
      if (!sniffed || sniffed.cls !== cls) {
        throw new AppError(422, 'file_wrong_type', { field, filename: f.filename, expected: cls === 'image' ? 'image' : 'video' });
      }
      return { file: f, type: sniffed.type };
    });
  }

  async function store(files: UploadedFile[], cls: MediaClass, field: string, created: string[]): Promise<StoredMedia[]> {
    const out: StoredMedia[] = [];
    for (const { file, type } of check(files, cls, field)) {
      const { cid, created: isNew } = await storeBlob(c, file.bytes, type);
      if (isNew) created.push(cid);
      out.push({ cid, filename: file.filename, contentType: type, size: file.bytes.length });
    }
    return out;
  }

  /** Remove blobs this request wrote, unless some row has come to reference them meanwhile. */
  async function cleanup(created: string[]) {
    for (const cid of created) {
      const used = await db.query('select 1 from images where cid = $1 limit 1', [cid]);
      if (used.rows.length) continue;
      await db.query('delete from blobs where cid = $1', [cid]);
      await blobs.delete(cid);
    }
  }

  return {
    /**
     * Store `files` (checked to be non-empty media of class `cls`), then run `work` with them.
     * On any failure the new, unreferenced blobs are removed before the error propagates.
     */
    async withUploads<T>(files: UploadedFile[], cls: MediaClass, field: string, work: (media: StoredMedia[]) => Promise<T>): Promise<T> {
      const created: string[] = [];
      try {
        return await work(await store(files, cls, field, created));
      } catch (err) {
        await cleanup(created).catch((e) => c.logger.error({ err: e }, 'upload cleanup failed'));
        throw err;
      }
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
