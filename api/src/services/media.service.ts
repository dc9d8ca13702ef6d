import type { Logger } from '../../../shared/src/logger.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { sniffMedia, type MediaClass } from '../../../shared/src/domain/media.js';
import { assertPixels } from '../../../shared/src/domain/pixels.js';
import { cidForBytes } from '../../../shared/src/evidence/cid.js';
import type { addBlobOwner, removeBlobOwner, stage, unstage } from '../../../shared/src/repos/evidence/blob-refs.js';
import { checkVideo } from './video-probe.js';
import type { UploadedFile } from '../middleware/multipart.js';

export type { StoredMedia } from '../../../shared/src/domain/stored-media.js';
import type { StoredMedia } from '../../../shared/src/domain/stored-media.js';

/**
 * Uploads into the content-addressed store, Supabase storage-api style: write the blobs, run the
 * work that references them, and if that work fails, delete the blobs this request created that
 * nothing references. A failed request leaves neither rows nor orphaned blobs.
 */
export interface MediaDeps {
  db: Queryable;
  /** blob-registry's storeBlob on the database and the blob store: the bytes and their `blobs` row. */
  storeBlob: (bytes: Uint8Array, contentType: string) => Promise<{ cid: string; created: boolean }>;
  /** blob-refs' releaseBlobs: each CID goes only if nothing at all references it; answers those deleted. */
  releaseBlobs: (cids: readonly string[]) => Promise<string[]>;
  /** blob-refs' staging and video-ownership statements. */
  refs: { stage: typeof stage; unstage: typeof unstage; addBlobOwner: typeof addBlobOwner; removeBlobOwner: typeof removeBlobOwner };
  /** IMAGE_MAX_PIXELS, VIDEO_MAX_SECONDS and VIDEO_MAX_PIXELS. */
  limits: { imageMaxPixels: number; videoMaxSeconds: number; videoMaxPixels: number };
  logger: Pick<Logger, 'error'>;
}

export function createMediaService({ db, storeBlob, releaseBlobs, refs, limits, logger }: MediaDeps) {
  const { stage, unstage, addBlobOwner, removeBlobOwner } = refs;

  async function check(files: UploadedFile[], cls: MediaClass, field: string) {
    if (files.length === 0) throw new AppError(422, 'file_missing', { field });
    const checked = files.map((f) => {
      if (f.bytes.length === 0) throw new AppError(422, 'file_empty', { field, filename: f.filename });
      const sniffed = sniffMedia(f.bytes);
      if (!sniffed || sniffed.cls !== cls) {
        throw new AppError(422, 'file_wrong_type', { field, filename: f.filename, expected: cls === 'image' ? 'image' : 'video' });
      }
      return { file: f, type: sniffed.type };
    });
    // Pixels from the header, before anything is stored or decoded (a decompression bomb is small in bytes).
    if (cls === 'image') for (const { file } of checked) await assertPixels(file.bytes, limits.imageMaxPixels, field, file.filename);
    return checked;
  }

  async function store(
    files: UploadedFile[],
    cls: MediaClass,
    field: string,
    created: string[],
    staged: string[],
    ownerId?: string,
  ): Promise<StoredMedia[]> {
    const checked = await check(files, cls, field);
    if (cls === 'video') {
      const video = { maxSeconds: limits.videoMaxSeconds, maxPixels: limits.videoMaxPixels };
      for (const { file } of checked) await checkVideo(file.bytes, video, field);
    }
    const out: StoredMedia[] = [];
    for (const { file, type } of checked) {
      // Staged before the bytes land, so a process killed mid-request leaves a row the orphan sweep finds.
      const stagedCid = await cidForBytes(file.bytes);
      await stage(db, stagedCid);
      staged.push(stagedCid);
      const { cid, created: isNew } = await storeBlob(file.bytes, type);
      if (isNew) created.push(cid);
      // Videos are named by no image row; this is what lets their uploader fetch them back.
      if (cls === 'video' && ownerId) await addBlobOwner(db, cid, ownerId);
      out.push({ cid, filename: file.filename, contentType: type, size: file.bytes.length, created: isNew });
    }
    return out;
  }

  /**
   * Undo a failed request: drop its own staging rows and its own video ownership rows, then
   * release the blobs it created; each goes only if nothing at all references it (blob-refs).
   */
  async function cleanup(created: string[], stagedCids: string[], ownerId?: string) {
    await unstage(db, stagedCids);
    if (ownerId) await removeBlobOwner(db, created, ownerId);
    await releaseBlobs(created);
  }

  return {
    /**
     * Store `files` (checked to be non-empty media of class `cls`), then run `work` with them.
     * On any failure the new, unreferenced blobs are removed before the error propagates.
     */
    async withUploads<T>(
      files: UploadedFile[],
      cls: MediaClass,
      field: string,
      work: (media: StoredMedia[]) => Promise<T>,
      ownerId?: string,
    ): Promise<T> {
      const created: string[] = [];
      const staged: string[] = [];
      let failed = false;
      try {
        const stored = await store(files, cls, field, created, staged, ownerId);
        return await work(stored);
      } catch (err) {
        failed = true;
        await cleanup(created, staged.splice(0), ownerId).catch((e) => logger.error({ err: e }, 'upload cleanup failed'));
        throw err;
      } finally {
        // The work (a job enqueued or a row written) now holds the blobs, or cleanup removed them.
        // Only this request's own staging rows go: another upload of the same bytes keeps its own.
        if (!failed && staged.length) await unstage(db, staged).catch(() => undefined);
      }
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
