import type { Container } from '../../../shared/src/container.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { sniffMedia, type MediaClass } from '../../../shared/src/domain/media.js';
import { storeBlob } from '../../../shared/src/evidence/store/blob-registry.js';
import { cidForBytes } from '../../../shared/src/evidence/cid.js';
import { checkVideo } from './video-probe.js';
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

  async function store(files: UploadedFile[], cls: MediaClass, field: string, created: string[], ownerId?: string): Promise<StoredMedia[]> {
    const checked = check(files, cls, field);
    if (cls === 'video') {
      const limits = { maxSeconds: c.config.VIDEO_MAX_SECONDS, maxPixels: c.config.VIDEO_MAX_PIXELS };
      for (const { file } of checked) await checkVideo(file.bytes, limits, field);
    }
    const out: StoredMedia[] = [];
    for (const { file, type } of checked) {
      // Staged before the bytes land, so a process killed mid-request leaves a row the orphan sweep finds.
      await db.query('insert into upload_staging (cid) values ($1)', [await cidForBytes(file.bytes)]);
      const { cid, created: isNew } = await storeBlob(c, file.bytes, type);
      if (isNew) created.push(cid);
      // Videos are named by no image row; this is what lets their uploader fetch them back.
      if (cls === 'video' && ownerId) await db.query('insert into blob_owners (cid, owner_id) values ($1, $2) on conflict do nothing', [cid, ownerId]);
      out.push({ cid, filename: file.filename, contentType: type, size: file.bytes.length });
    }
    return out;
  }

  /** Remove blobs this request wrote, unless some row has come to reference them meanwhile. */
  async function cleanup(created: string[]) {
    for (const cid of created) {
      const used = await db.query('select 1 from images where cid = $1 limit 1', [cid]);
      if (used.rows.length) continue;
      await db.query('delete from blob_owners where cid = $1', [cid]);
      await db.query('delete from blobs where cid = $1', [cid]);
      await blobs.delete(cid);
    }
  }

  return {
    /**
     * Store `files` (checked to be non-empty media of class `cls`), then run `work` with them.
     * On any failure the new, unreferenced blobs are removed before the error propagates.
     */
    async withUploads<T>(files: UploadedFile[], cls: MediaClass, field: string, work: (media: StoredMedia[]) => Promise<T>, ownerId?: string): Promise<T> {
      const created: string[] = [];
      let stored: StoredMedia[] = [];
      try {
        stored = await store(files, cls, field, created, ownerId);
        return await work(stored);
      } catch (err) {
        await cleanup(created).catch((e) => c.logger.error({ err: e }, 'upload cleanup failed'));
        throw err;
      } finally {
        // The work (a job enqueued or a row written) now holds the blobs, or cleanup removed them.
        const cids = stored.map((m) => m.cid);
        if (cids.length) await db.query('delete from upload_staging where cid = any($1)', [cids]).catch(() => undefined);
      }
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
