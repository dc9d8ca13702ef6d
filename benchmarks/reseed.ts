/**
 * USAC's own run-to-run spread, for comparing another fit against it: OpenCV.js fixes USAC's
 * random seed and does not expose it, so a query's keypoints are put in another seeded order
 * instead. The matches and the geometry stay the same; only the order USAC draws its samples
 * from changes, which is what another seed would change.
 */
import { mulberry32 } from '../workers/src/vision/seeded.js';

/** The stored local-feature bytes (AKAZE's or XFeat's: 12-byte header, positions, descriptors) with keypoints reordered. */
export function permuteKeypoints(bytes: Uint8Array, seed: number): Uint8Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = dv.getUint32(4, true);
  const descBytes = bytes[3]!;
  const order = Array.from({ length: count }, (_, i) => i);
  const r = mulberry32(seed);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const out = bytes.slice();
  const xyAt = 12;
  const descAt = xyAt + count * 4;
  order.forEach((from, to) => {
    out.set(bytes.subarray(xyAt + from * 4, xyAt + from * 4 + 4), xyAt + to * 4);
    out.set(bytes.subarray(descAt + from * descBytes, descAt + (from + 1) * descBytes), descAt + to * descBytes);
  });
  return out;
}
