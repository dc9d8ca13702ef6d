/**
 * Reading a traceability code from a photo of a label's QR code, in the browser: nothing leaves
 * the phone but the code itself, which the shopper's screen then opens as if it had been typed.
 *
 * ```ts
 * const code = await codeInPhoto(file); // 'MKL-w3g1p1f-7QH4ZK2M', or null when no code is in it
 * ```
 */

/**
 * A code's shape, `<PREFIX>-<geohash7>-<8 characters>` (shared/src/domain/trace-code.ts
 * TRACE_CODE_RE; the app is built on its own and cannot import it).
 */
const CODE_SHAPE = /^[A-Z]{2,6}-[0-9b-hjkmnp-z]{7}-[2-9A-HJ-NP-Z]{8}$/;

/**
 * The code a QR's text names: the address of a code's page (`…/t/{code}`, from a label this
 * service printed, or another copy's: the code is what is looked up here) or a bare code.
 * Null for anything else, a web address of another kind included.
 */
export function codeInText(text: string): string | null {
  const s = text.trim();
  if (CODE_SHAPE.test(s)) return s;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return null;
  }
  const m = /^\/t\/([^/]+)\/?$/.exec(url.pathname);
  if (!m || !/^https?:$/.test(url.protocol)) return null;
  let code: string;
  try {
    code = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  return CODE_SHAPE.test(code) ? code : null;
}

/**
 * Longest sides the photo is read at, largest first: a phone's 12-megapixel photo is slow to scan
 * whole, and a QR code that fills little of it still has enough pixels at 1280. A smaller copy
 * is tried too, where noise or blur defeat the larger one.
 */
const SIDES = [1280, 640];

/** The traceability code in the QR code of `photo`, or null when none is found. */
export async function codeInPhoto(photo: Blob): Promise<string | null> {
  const { default: jsQR } = await import('./jsqr.js');
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(photo);
  } catch {
    return null; // not a picture the browser can read
  }
  try {
    for (const side of SIDES) {
      const scale = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
      const w = Math.max(1, Math.round(bitmap.width * scale));
      const ht = Math.max(1, Math.round(bitmap.height * scale));
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = ht;
      const ctx = canvas.getContext('2d', { willReadFrequently: true });
      if (!ctx) return null;
      ctx.drawImage(bitmap, 0, 0, w, ht);
      const found = jsQR(ctx.getImageData(0, 0, w, ht).data, w, ht, { inversionAttempts: 'attemptBoth' });
      const code = found ? codeInText(found.data) : null;
      if (code) return code;
      if (scale === 1) break; // already read at full size
    }
    return null;
  } finally {
    bitmap.close();
  }
}
