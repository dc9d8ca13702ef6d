import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeImage, measureQuality, UndecodableImageError } from './intake.js';
import { settingsFor } from './settings.js';
import { barkPixels } from './testing/synthetic.js';

const raw = (buf: Buffer, size: number) => sharp(buf, { raw: { width: size, height: size, channels: 3 } });
const texture = () => raw(barkPixels(7, 320), 320);

describe('decodeImage', () => {
  it('refuses a zero-byte file as unrecoverable', async () => {
    const err = await decodeImage(new Uint8Array(0)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UndecodableImageError);
    expect((err as UndecodableImageError).unrecoverable).toBe(true);
    expect((err as UndecodableImageError).code).toBe('image_undecodable');
  });

  it('refuses a truncated JPEG', async () => {
    const jpeg = await texture().jpeg().toBuffer();
    await expect(decodeImage(jpeg.subarray(0, Math.floor(jpeg.length / 2)))).rejects.toBeInstanceOf(UndecodableImageError);
  });

  it('refuses random bytes', async () => {
    const bytes = Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24);
    await expect(decodeImage(bytes)).rejects.toBeInstanceOf(UndecodableImageError);
  });

  it('applies EXIF orientation', async () => {
    const wide = await sharp(barkPixels(3, 320), { raw: { width: 320, height: 320, channels: 3 } })
      .extract({ left: 0, top: 0, width: 320, height: 200 })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const img = await decodeImage(wide);
    expect([img.width, img.height]).toEqual([200, 320]);
  });
});

describe('measureQuality', () => {
  const q = settingsFor('tree').quality;

  it('accepts a sharp, well-lit texture', async () => {
    const report = await measureQuality(await decodeImage(await texture().jpeg().toBuffer()), q);
    expect(report.reasons).toEqual([]);
  });

  it('flags a tiny image as too_small', async () => {
    const tiny = await texture().resize(32, 32).png().toBuffer();
    expect((await measureQuality(await decodeImage(tiny), q)).reasons).toContain('too_small');
  });

  it('flags a heavily blurred image as too_blurred', async () => {
    const blurred = await texture().blur(12).png().toBuffer();
    const report = await measureQuality(await decodeImage(blurred), q);
    expect(report.reasons).toContain('too_blurred');
    expect(report.reasons).not.toContain('too_dark');
  });

  it('flags a dark image as too_dark', async () => {
    const dark = await texture().linear(0.08, 0).png().toBuffer();
    expect((await measureQuality(await decodeImage(dark), q)).reasons).toContain('too_dark');
  });
});
