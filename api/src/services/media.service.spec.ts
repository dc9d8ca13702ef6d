import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { cidForBytes } from '../../../shared/src/evidence/cid.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createMediaService, type MediaDeps } from './media.service.js';

const OWNER = '11111111-1111-4111-8111-111111111111';
const db = strictMock<Queryable>({}, 'db');
const png = (side: number, shade: number) =>
  sharp({ create: { width: side, height: side, channels: 3, background: { r: shade, g: 80, b: 40 } } })
    .png()
    .toBuffer();
const file = (bytes: Buffer, filename = 'a.png') => ({ bytes, filename }) as UploadedFile;

/** The deps with a recording blob store: `existing` CIDs are already stored (created: false). */
function setup(over: Partial<MediaDeps> = {}, existing: string[] = []) {
  const calls: string[] = [];
  const storeBlob = vi.fn(async (bytes: Uint8Array) => {
    const cid = await cidForBytes(bytes);
    calls.push(`store ${cid}`);
    return { cid, created: !existing.includes(cid) };
  });
  const releaseBlobs = vi.fn(async (cids: readonly string[]) => [...cids]);
  const refs = {
    stage: vi.fn(async (_db: Queryable, cid: string) => void calls.push(`stage ${cid}`)),
    unstage: vi.fn(async (_db: Queryable, cids: readonly string[]) => void calls.push(`unstage ${cids.length}`)),
    addBlobOwner: vi.fn(async () => {}),
    removeBlobOwner: vi.fn(async () => {}),
  };
  const logger = { error: vi.fn() };
  const deps = {
    db,
    storeBlob,
    releaseBlobs,
    refs: refs as unknown as MediaDeps['refs'],
    limits: { imageMaxPixels: 10_000, videoMaxSeconds: 60, videoMaxPixels: 1920 * 1080 },
    logger,
    ...over,
  } as MediaDeps;
  return { media: createMediaService(deps), calls, storeBlob, releaseBlobs, refs, logger };
}

describe('media service: checking uploads before anything is stored', () => {
  it('refuses no file, an empty file and a file of the wrong kind with 422 naming the field, storing nothing', async () => {
    const { media, storeBlob, refs } = setup();
    const work = vi.fn();
    await expect(media.withUploads([], 'image', 'files', work)).rejects.toMatchObject({ status: 422, code: 'file_missing' });
    await expect(media.withUploads([file(Buffer.alloc(0))], 'image', 'files', work)).rejects.toMatchObject({
      status: 422,
      code: 'file_empty',
    });
    await expect(media.withUploads([file(Buffer.from('just some text, not a photo'))], 'image', 'files', work)).rejects.toMatchObject({
      status: 422,
      code: 'file_wrong_type',
    });
    // A photo sent where a video is expected is the wrong kind too.
    await expect(media.withUploads([file(await png(8, 1))], 'video', 'file', work)).rejects.toMatchObject({ code: 'file_wrong_type' });
    expect(work).not.toHaveBeenCalled();
    expect(storeBlob).not.toHaveBeenCalled();
    expect(refs.stage).not.toHaveBeenCalled();
  });

  it('refuses an image whose header declares more pixels than the cap (413), before storing any of the request', async () => {
    const { media, storeBlob } = setup();
    const small = await png(8, 1);
    const big = await png(101, 2); // 10,201 pixels against a cap of 10,000
    await expect(media.withUploads([file(small), file(big, 'big.png')], 'image', 'files', vi.fn())).rejects.toMatchObject({
      status: 413,
      code: 'image_too_many_pixels',
    });
    expect(storeBlob).not.toHaveBeenCalled();
  });
});

describe('media service: storing', () => {
  it('stages each blob before its bytes land, hands the work the stored media, then clears its staging rows', async () => {
    const { media, calls, releaseBlobs } = setup();
    const a = await png(8, 1);
    const b = await png(8, 2);
    const [ca, cb] = [await cidForBytes(a), await cidForBytes(b)];
    const out = await media.withUploads([file(a, 'a.png'), file(b, 'b.png')], 'image', 'files', async (m) => m);
    expect(out).toEqual([
      { cid: ca, filename: 'a.png', contentType: 'image/png', size: a.length, created: true },
      { cid: cb, filename: 'b.png', contentType: 'image/png', size: b.length, created: true },
    ]);
    expect(calls).toEqual([`stage ${ca}`, `store ${ca}`, `stage ${cb}`, `store ${cb}`, 'unstage 2']);
    expect(releaseBlobs).not.toHaveBeenCalled();
  });

  it('when the work fails: releases the blobs this request created (not one already stored), clears its staging, and rethrows', async () => {
    const a = await png(8, 1);
    const b = await png(8, 2);
    const [ca, cb] = [await cidForBytes(a), await cidForBytes(b)];
    const { media, releaseBlobs, refs } = setup({}, [cb]);
    const boom = new Error('job could not be queued');
    await expect(media.withUploads([file(a), file(b)], 'image', 'files', async () => Promise.reject(boom), OWNER)).rejects.toBe(boom);
    expect(refs.unstage).toHaveBeenCalledWith(db, [ca, cb]);
    expect(refs.removeBlobOwner).toHaveBeenCalledWith(db, [ca], OWNER);
    expect(releaseBlobs).toHaveBeenCalledWith([ca]);
    // Cleared once, by the cleanup: nothing is left staged for the finally step.
    expect(refs.unstage).toHaveBeenCalledTimes(1);
  });

  it("logs a cleanup that fails and still answers the work's own error", async () => {
    const boom = new Error('row insert failed');
    const { media, logger } = setup({ releaseBlobs: async () => Promise.reject(new Error('blob store down')) });
    await expect(media.withUploads([file(await png(8, 3))], 'image', 'files', async () => Promise.reject(boom))).rejects.toBe(boom);
    expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ err: expect.any(Error) }), 'upload cleanup failed');
  });
});
