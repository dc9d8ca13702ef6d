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

/**
 * Why the live camera cannot scan: no camera API in this browser (or a page not served securely),
 * the person or the browser refused it, or no camera could be opened.
 */
export type CameraTrouble = 'unsupported' | 'denied' | 'missing';

/** A running live scan. */
export interface LiveScan {
  /** Ends the frame loop and every track of the camera; calling it again does nothing. */
  stop(): void;
}

/**
 * Longest side a camera frame is read at: a label held up to the camera fills much of the frame,
 * so this is enough pixels, and small enough that a slow phone reads several frames a second.
 */
const LIVE_SIDE = 640;
/** Pause between two frames read: often enough to feel instant, rarely enough to leave the phone cool. */
const LIVE_EVERY_MS = 150;

/**
 * Shows the back camera (the front one where there is no other) in `video` and reads QR codes in
 * its frames until stopped: `onRead` gets each QR's traceability code, or null for a QR code of
 * another kind, and decides whether to stop. The loop stops by itself once `video` has left the
 * page, so a screen drawn again never leaves the camera on. Resolves once the camera runs, or
 * with why it cannot.
 */
export async function startLiveScan(video: HTMLVideoElement, onRead: (code: string | null) => void): Promise<LiveScan | CameraTrouble> {
  if (!navigator.mediaDevices?.getUserMedia) return 'unsupported';
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
  } catch (e) {
    const name = (e as { name?: string } | null)?.name;
    return name === 'NotAllowedError' || name === 'SecurityError' ? 'denied' : 'missing';
  }
  const { default: jsQR } = await import('./jsqr.js');
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    for (const track of stream.getTracks()) track.stop();
    video.srcObject = null;
  };
  // Closed while the person was still answering the permission prompt: nothing to show.
  if (!video.isConnected) {
    stop();
    return { stop };
  }
  video.srcObject = stream;
  video.play().catch(() => undefined); // muted and inline, it plays; a refusal shows a still frame
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const tick = () => {
    if (stopped) return;
    if (!video.isConnected || !ctx) return stop();
    if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA && video.videoWidth > 0) {
      const scale = Math.min(1, LIVE_SIDE / Math.max(video.videoWidth, video.videoHeight));
      const w = Math.max(1, Math.round(video.videoWidth * scale));
      const ht = Math.max(1, Math.round(video.videoHeight * scale));
      if (canvas.width !== w || canvas.height !== ht) Object.assign(canvas, { width: w, height: ht });
      ctx.drawImage(video, 0, 0, w, ht);
      // Printed labels are dark on light: skipping the inverted pass halves the work of each frame.
      const found = jsQR(ctx.getImageData(0, 0, w, ht).data, w, ht, { inversionAttempts: 'dontInvert' });
      if (found) onRead(codeInText(found.data));
      // The reader closed the view (a code found): the camera stops before its next step runs.
      if (stopped || !video.isConnected) return stop();
    }
    timer = setTimeout(tick, LIVE_EVERY_MS);
  };
  timer = setTimeout(tick, 0);
  return { stop };
}
