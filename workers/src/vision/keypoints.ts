/**
 * Local features: AKAZE keypoints (binary descriptors) extracted with
 * @techstark/opencv-js, packed into a compact Uint8Array so they can be stored
 * in the database and matched later without recomputation.
 *
 * Layout (little-endian): 'MK' magic, u8 format version, u8 descriptor bytes,
 * u32 count, u16 width, u16 height, then `count` x (u16 x*8, u16 y*8), then
 * `count` x descriptor bytes.
 */
import type { DecodedImage } from './intake.js';
import { toGrey } from './intake.js';
import { loadOpenCV } from './opencv.js';

const FORMAT = 1;
/** AKAZE's default detector threshold is 0.001. */
const LOW_THRESHOLD = 0.0002;
const HEADER = 12;

/** Keypoints of one image, in the coordinates of the image they were extracted from. */
export interface LocalFeatures {
  width: number;
  height: number;
  /** x0, y0, x1, y1, ... */
  xy: Float32Array;
  /** `count` rows of `descBytes` bytes. */
  desc: Uint8Array;
  descBytes: number;
  count: number;
}

export interface ExtractOptions {
  /** Longest side the grey image is scaled to (up or down). */
  side: number;
  /** Strongest keypoints kept. */
  maxKeypoints: number;
}

/** Extracts AKAZE keypoints and descriptors from a decoded image. */
export async function extractFeatures(img: DecodedImage, opts: ExtractOptions): Promise<LocalFeatures> {
  const cv = await loadOpenCV();
  const grey = await toGrey(img, opts.side, true);
  const mat = new cv.Mat(grey.height, grey.width, cv.CV_8UC1);
  mat.data.set(grey.data);
  const akaze = new cv.AKAZE();
  const kps = new cv.KeyPointVector();
  const desc = new cv.Mat();
  const noMask = new cv.Mat();
  try {
    akaze.detectAndCompute(mat, noMask, kps, desc);
    if (kps.size() < opts.maxKeypoints / 2) {
      // Low-texture or small (upscaled) photos: a lower detector threshold
      // recovers weaker but still repeatable keypoints; the strongest are kept.
      akaze.setThreshold(LOW_THRESHOLD);
      akaze.detectAndCompute(mat, noMask, kps, desc);
    }
    const n = kps.size();
    const descBytes = n > 0 ? desc.cols : 61;
    const order = Array.from({ length: n }, (_, i) => i);
    const responses = order.map((i) => kps.get(i).response as number);
    order.sort((a, b) => responses[b]! - responses[a]!);
    const keep = order.slice(0, opts.maxKeypoints);
    const xy = new Float32Array(keep.length * 2);
    const out = new Uint8Array(keep.length * descBytes);
    const all = desc.data as Uint8Array;
    keep.forEach((src, dst) => {
      const kp = kps.get(src);
      xy[dst * 2] = kp.pt.x;
      xy[dst * 2 + 1] = kp.pt.y;
      out.set(all.subarray(src * descBytes, (src + 1) * descBytes), dst * descBytes);
    });
    return { width: grey.width, height: grey.height, xy, desc: out, descBytes, count: keep.length };
  } finally {
    mat.delete();
    akaze.delete();
    kps.delete();
    desc.delete();
    noMask.delete();
  }
}

/** Packs features into the stored byte format. */
export function packFeatures(f: LocalFeatures): Uint8Array {
  const bytes = new Uint8Array(HEADER + f.count * 4 + f.count * f.descBytes);
  const dv = new DataView(bytes.buffer);
  bytes[0] = 0x4d; // 'M'
  bytes[1] = 0x4b; // 'K'
  bytes[2] = FORMAT;
  bytes[3] = f.descBytes;
  dv.setUint32(4, f.count, true);
  dv.setUint16(8, f.width, true);
  dv.setUint16(10, f.height, true);
  for (let i = 0; i < f.count * 2; i++) dv.setUint16(HEADER + i * 2, Math.round(f.xy[i]! * 8), true);
  bytes.set(f.desc, HEADER + f.count * 4);
  return bytes;
}

/** Unpacks the stored byte format. @throws Error on a malformed buffer. */
export function unpackFeatures(bytes: Uint8Array): LocalFeatures {
  if (bytes.byteLength < HEADER || bytes[0] !== 0x4d || bytes[1] !== 0x4b || bytes[2] !== FORMAT) {
    throw new Error('not a markless keypoint buffer');
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const descBytes = bytes[3]!;
  const count = dv.getUint32(4, true);
  if (bytes.byteLength !== HEADER + count * (4 + descBytes)) throw new Error('truncated keypoint buffer');
  const xy = new Float32Array(count * 2);
  for (let i = 0; i < count * 2; i++) xy[i] = dv.getUint16(HEADER + i * 2, true) / 8;
  const desc = bytes.slice(HEADER + count * 4);
  return { width: dv.getUint16(8, true), height: dv.getUint16(10, true), xy, desc, descBytes, count };
}
