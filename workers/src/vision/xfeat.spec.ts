import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeImage } from './intake.js';
import { barkView } from './testing/synthetic.js';
import { mutualNearest, mutualNearestBatch, verifyXFeatPair } from './xfeat-match.js';
import { loadXFeat, packXFeat, unpackXFeat, XFEAT_DIM } from './xfeat.js';

describe('XFeat local features', () => {
  it('extracts top-K keypoints with unit descriptors from a generated image, batched or one by one alike', async () => {
    const xf = await loadXFeat();
    expect(xf.model.name).toBe('xfeat-backbone');
    const a = await decodeImage(await barkView(21, { left: 0, top: 0, size: 320 }));
    const b = await decodeImage(await barkView(22, { left: 0, top: 0, size: 320 }));
    const [fa, fb] = await xf.extract([a, b], { side: 320, topK: 256 });
    const [solo] = await xf.extract([a], { side: 320, topK: 256 });
    expect(fa!.count).toBe(256);
    expect(fa!.width % 32).toBe(0);
    for (let i = 0; i < fa!.count; i++) {
      let n = 0;
      for (let c = 0; c < XFEAT_DIM; c++) n += fa!.desc[i * XFEAT_DIM + c]! ** 2;
      expect(Math.sqrt(n)).toBeCloseTo(1, 4);
      expect(fa!.xy[i * 2]!).toBeLessThan(fa!.width);
    }
    expect(Array.from(solo!.xy)).toEqual(Array.from(fa!.xy));
    expect(fb!.xy).not.toEqual(fa!.xy);
    // Stored as int8: keypoints survive exactly (1/8 px), descriptors to within quantisation.
    const back = unpackXFeat(packXFeat(fa!));
    expect(Array.from(back.xy)).toEqual(Array.from(fa!.xy, (v) => Math.round(v * 8) / 8));
    let dot = 0;
    for (let c = 0; c < XFEAT_DIM; c++) dot += back.desc[c]! * fa!.desc[c]!;
    expect(dot).toBeGreaterThan(0.999);
  }, 60_000);

  it('enlarges a small photo at most maxUpscale times, and leaves a large one at the long side asked', async () => {
    const xf = await loadXFeat();
    const small = await decodeImage(
      await barkView(23, { left: 0, top: 0, size: 300 }, 480).then((b) => sharp(b).resize(110, 100).jpeg().toBuffer()),
    );
    const large = await decodeImage(await barkView(24, { left: 0, top: 0, size: 300 }, 480));
    const [capped, bigCapped] = await xf.extract([small, large], { side: 640, topK: 256, maxUpscale: 3 });
    const [uncapped] = await xf.extract([small], { side: 640, topK: 256 });
    // 110 px × 3 = 330, down to a multiple of 32; without the cap, the long side asked.
    expect([capped!.width, capped!.height]).toEqual([320, 288]);
    expect(uncapped!.width).toBe(640);
    expect(bigCapped!.width).toBe(640);
  }, 60_000);

  it('matches another view of the same surface with many more inliers than a different surface', async () => {
    const xf = await loadXFeat();
    const [g, same, other] = await xf.extract(
      [
        await decodeImage(await barkView(31, { left: 0, top: 0, size: 400 })),
        await decodeImage(await barkView(31, { left: 60, top: 40, size: 300, rotate: 15, brightness: 1.2 })),
        await decodeImage(await barkView(32, { left: 60, top: 40, size: 300, rotate: 15, brightness: 1.2 })),
      ],
      { side: 384, topK: 512 },
    );
    const hit = await verifyXFeatPair(same!, g!, { minCos: 0.82 });
    const miss = await verifyXFeatPair(other!, g!, { minCos: 0.82 });
    expect(hit.inliers.length).toBeGreaterThan(30);
    expect(hit.inliers.length).toBeGreaterThan(3 * miss.inliers.length);
    // The batched ONNX matcher gives the pairs the JavaScript one does.
    const batched = await mutualNearestBatch(same!, [g!, other!], 0.82);
    expect(batched[0]).toEqual(mutualNearest(same!, g!, 0.82));
    expect(batched[1]).toEqual(mutualNearest(same!, other!, 0.82));
  }, 60_000);
});
