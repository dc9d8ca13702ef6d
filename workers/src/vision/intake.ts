/**
 * Image intake: decode (EXIF orientation applied), refuse what cannot be
 * decoded, and measure whether the photo is usable for recognition.
 */
import sharp from 'sharp';
import type { QualitySettings } from './settings.js';

/** The bytes are not a decodable image (zero-byte, truncated, or not an image). Never retry. */
export class UndecodableImageError extends Error {
  readonly code = 'image_undecodable';
  /** Steers the job runner: fail without retry (same meaning as BullMQ's UnrecoverableError). */
  readonly unrecoverable = true;
  constructor(detail: string) {
    super(`image could not be decoded: ${detail}`);
    this.name = 'UndecodableImageError';
  }
}

export type UnusableReason = 'too_small' | 'too_blurred' | 'too_dark';

/** The image decoded but is not good enough to identify from; `reasons` says why. */
export class UnusableImageError extends Error {
  readonly code = 'image_unusable';
  readonly unrecoverable = true;
  constructor(
    readonly reasons: UnusableReason[],
    readonly quality: QualityReport,
  ) {
    super(`image unusable: ${reasons.join(', ')}`);
    this.name = 'UnusableImageError';
  }
}

/** Measured quality of one photo. */
export interface QualityReport {
  width: number;
  height: number;
  /** Variance of the Laplacian of the grey image (long side at most 256 px). */
  sharpness: number;
  /** Mean luminance, 0-255. */
  brightness: number;
  /** Reasons it fails the kind's thresholds; empty when usable. */
  reasons: UnusableReason[];
}

/** A decoded, upright RGB image. */
export interface DecodedImage {
  /** Interleaved RGB, 8 bits per channel, row-major. */
  rgb: Buffer;
  width: number;
  height: number;
}

/** Largest side kept after decoding; recognition never needs more. */
const MAX_SIDE = 1280;

/**
 * Decodes bytes into an upright RGB image, scaled down to at most 1280 px.
 * @throws UndecodableImageError for anything sharp cannot fully decode.
 */
export async function decodeImage(bytes: Uint8Array): Promise<DecodedImage> {
  if (bytes.byteLength === 0) throw new UndecodableImageError('zero-byte file');
  try {
    const { data, info } = await sharp(bytes, { failOn: 'truncated' })
      .rotate()
      .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`unexpected channel count ${info.channels}`);
    return { rgb: data, width: info.width, height: info.height };
  } catch (err) {
    throw new UndecodableImageError((err as Error).message);
  }
}

/** The image scaled so its longest side is at most `side` (the same image when it already fits). */
export async function downscale(img: DecodedImage, side: number): Promise<DecodedImage> {
  if (Math.max(img.width, img.height) <= side) return img;
  const { data, info } = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize({ width: side, height: side, fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { rgb: data, width: info.width, height: info.height };
}

/** Grey image (luma) of a decoded image scaled so its longest side is at most `side`. */
export async function toGrey(img: DecodedImage, side: number, enlarge = false): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: !enlarge })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Measures sharpness and brightness and checks them against a kind's thresholds. */
export async function measureQuality(img: DecodedImage, q: QualitySettings): Promise<QualityReport> {
  const grey = await toGrey(img, 256);
  const { sharpness, brightness } = laplacianStats(grey.data, grey.width, grey.height);
  const measured = { width: img.width, height: img.height, sharpness, brightness };
  return { ...measured, reasons: unusableReasons(measured, q) };
}

/** Why measured quality fails a kind's gate (empty: usable). Pure, so one measurement can be judged by several kinds' gates. */
export function unusableReasons(m: Omit<QualityReport, 'reasons'>, q: QualitySettings): UnusableReason[] {
  const reasons: UnusableReason[] = [];
  if (Math.min(m.width, m.height) < q.minSide) reasons.push('too_small');
  if (m.sharpness < q.minSharpness) reasons.push('too_blurred');
  if (m.brightness < q.minBrightness) reasons.push('too_dark');
  return reasons;
}

export function laplacianStats(px: Uint8Array, w: number, h: number): { sharpness: number; brightness: number } {
  let sum = 0;
  for (let i = 0; i < px.length; i++) sum += px[i]!;
  let n = 0;
  let s1 = 0;
  let s2 = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const lap = px[i - 1]! + px[i + 1]! + px[i - w]! + px[i + w]! - 4 * px[i]!;
      s1 += lap;
      s2 += lap * lap;
      n++;
    }
  }
  const mean = n ? s1 / n : 0;
  return { sharpness: n ? s2 / n - mean * mean : 0, brightness: px.length ? sum / px.length : 0 };
}
