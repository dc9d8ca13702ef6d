import { describe, expect, it } from 'vitest';
import { hammingMatchesBatch } from './hamming-match.js';
import { decodeImage } from './intake.js';
import { extractFeatures, type LocalFeatures } from './keypoints.js';
import { loadOpenCV } from './opencv.js';
import { barkView } from './testing/synthetic.js';
import { tentativeMatches } from './verify.js';

const features = async (seed: number, view: Parameters<typeof barkView>[1], maxKeypoints: number): Promise<LocalFeatures> =>
  extractFeatures(await decodeImage(await barkView(seed, view)), { side: 320, maxKeypoints });

describe('AKAZE matching as one ONNX run', () => {
  it('gives exactly the pairs of OpenCV’s ratio-tested brute-force matcher, for gallery images of every size in one batch', async () => {
    const cv = await loadOpenCV();
    const q = await features(41, { left: 60, top: 40, size: 300, rotate: 20, brightness: 1.2 }, 300);
    const gallery = [
      await features(41, { left: 0, top: 0, size: 400 }, 300),
      await features(42, { left: 0, top: 0, size: 400 }, 300),
      // Fewer keypoints than the others: padding columns must never be a nearest neighbour.
      await features(41, { left: 100, top: 100, size: 250 }, 60),
      { ...q, count: 1, desc: q.desc.slice(0, q.descBytes), xy: q.xy.slice(0, 2) },
    ];
    const batched = await hammingMatchesBatch(q, gallery, 0.8);
    gallery.forEach((g, i) => expect(batched[i], `gallery ${i}`).toEqual(g.count >= 2 ? tentativeMatches(cv, q, g, 0.8) : []));
    expect(batched[0]!.length).toBeGreaterThan(3 * batched[1]!.length);
    expect(batched[2]!.length).toBeGreaterThan(0);
  }, 60_000);

  it('never takes a padding column for a second nearest neighbour', async () => {
    const cv = await loadOpenCV();
    /** A keypoint whose descriptor has its first `ones` bits set (61-byte descriptors, as AKAZE's). */
    const desc = (ones: number[]): LocalFeatures => {
      const d = new Uint8Array(ones.length * 61);
      ones.forEach((n, k) => {
        for (let b = 0; b < n; b++) d[k * 61 + (b >> 3)]! |= 0x80 >> (b & 7);
      });
      return { width: 64, height: 64, xy: new Float32Array(ones.length * 2), desc: d, descBytes: 61, count: ones.length };
    };
    const q = desc([0]);
    // Nearest at 220 bits, second at 480: a match by the ratio test. A padding column scores half
    // the bits (244) and, taken for the second, would turn it down.
    const sparse = desc([220, 480]);
    const wide = desc(Array.from({ length: 10 }, (_, i) => 300 + i));
    const batched = await hammingMatchesBatch(q, [sparse, wide], 0.8);
    expect(batched[0]).toEqual([[0, 0]]);
    expect(batched[0]).toEqual(tentativeMatches(cv, q, sparse, 0.8));
    expect(batched[1]).toEqual(tentativeMatches(cv, q, wide, 0.8));
  });
});
