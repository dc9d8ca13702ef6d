/**
 * Pixel caps, read from the image header before anything decodes it. A small PNG declaring
 * 16000×16000 pixels once tied up OCR for a long while and a lot of memory: the byte limits cannot
 * see a decompression bomb, only the declared dimensions can (docs/security.md, "Hardening"). sharp's `metadata()` parses the header and decodes no pixels.
 */
import sharp from 'sharp';
import { AppError } from './errors.js';

/** Width × height of one frame as the header declares it, or null when there is no readable header. */
export async function headerPixels(bytes: Buffer): Promise<{ width: number; height: number } | null> {
  try {
    const m = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (!m.width || !m.height) return null;
    // Animated images: sharp decodes one page unless asked for more, so one page is what counts.
    return { width: m.width, height: m.pageHeight ?? m.height };
  } catch {
    return null;
  }
}

/** The 413 for an image over `max` pixels, or null when it is within the cap (or has no readable header). */
export async function pixelError(bytes: Buffer, max: number, field: string, filename: string): Promise<AppError | null> {
  const dims = await headerPixels(bytes);
  if (!dims || dims.width * dims.height <= max) return null;
  return new AppError(413, 'image_too_many_pixels', { field, filename, got: `${dims.width}×${dims.height}`, max, reason: 'pixels' });
}

/** Throws the 413 when the image is over the cap; undecodable images are left to the decoder's own message. */
export async function assertPixels(bytes: Buffer, max: number, field: string, filename: string): Promise<void> {
  const err = await pixelError(bytes, max, field, filename);
  if (err) throw err;
}
