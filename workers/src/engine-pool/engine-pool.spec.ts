import { afterAll, describe, expect, it } from 'vitest';
import { RecognitionEngine } from '../vision/engine.js';
import { UndecodableImageError, UnusableImageError } from '../vision/intake.js';
import { textureImage } from '../../../test/support/images.js';
import { ANIMAL_CLASS_IDS, loadDetector } from '../vision/detector.js';
import { animalScene } from '../vision/testing/animal-scene.js';
import { decodeImage } from '../vision/intake.js';
import { verifyLocal } from '../vision/local-features.js';
import { settingsFor, type Kind } from '../vision/settings.js';
import sharp from 'sharp';
import { DEFAULT_VIEWS, detectViews } from '../survey/views.js';
import { estimateMotion, greyFrame } from '../survey/motion.js';
import { createEnginePool, poolSettings, withLane } from './index.js';

describe('engine pool', () => {
  const pool = createEnginePool({ size: 1, batchSize: 4, lingerMs: 50 });
  afterAll(() => pool.close());

  it("batched descriptors equal the unbatched engine's, photo by photo", async () => {
    const engine = await RecognitionEngine.create();
    const photos = await Promise.all([31, 32, 33, 34].map((s) => textureImage(s, 320)));
    const one: Awaited<ReturnType<typeof engine.describe>>[] = [];
    for (const p of photos) one.push(await engine.describe(p, { kind: 'fruit' }));
    // Bulk lane with a linger: the four arrive together and run as one batch.
    const before = pool.stats().batches;
    const batched = await withLane('bulk', () => pool.describeMany(photos.map((bytes) => ({ bytes, opts: { kind: 'fruit' as const } }))));
    expect(pool.stats().batches - before).toBe(1);
    batched.forEach((d, i) => {
      if (d instanceof Error) throw d;
      const ref = one[i]!;
      expect(d.model).toEqual(ref.model);
      expect(d.global).toHaveLength(ref.global.length);
      // Float kernels may sum in another order over a batch; stored vectors agree to float precision.
      for (let k = 0; k < ref.global.length; k++) expect(Math.abs(d.global[k]! - ref.global[k]!)).toBeLessThan(1e-5);
      expect(Buffer.from(d.local).equals(Buffer.from(ref.local))).toBe(true);
      expect(d.quality).toEqual(ref.quality);
    });
  }, 120_000);

  it.each<Kind>(['tree', 'fruit'])(
    "verifies keypoints in the pool exactly as on the caller's thread (%s)",
    async (kind) => {
      const engine = await RecognitionEngine.create();
      const [a, b, c] = await Promise.all([41, 41, 42].map((seed, i) => textureImage(seed, 320 + i * 16)));
      const [q, same, other] = await Promise.all([a!, b!, c!].map((p) => engine.describe(p, { kind })));
      const gallery = new Map([
        ['same', same!.local],
        ['other', other!.local],
      ]);
      const ids = ['same', 'other', 'missing'];
      const s = settingsFor(kind);
      const here = await verifyLocal(q!.local, gallery, ids, s);
      const there = await withLane('bulk', () => pool.verify(q!.local, gallery, ids, s));
      expect([...there.keys()]).toEqual([...here.keys()]);
      for (const [id, ev] of here) {
        expect(Array.from(there.get(id)!.inliers)).toEqual(Array.from(ev.inliers));
        expect(there.get(id)!.spread).toBeCloseTo(ev.spread, 9);
      }
      // The same texture photographed twice verifies; another texture does not.
      expect(here.get('same')!.inliers.length).toBeGreaterThan(here.get('other')!.inliers.length);
    },
    120_000,
  );

  it('detects objects in a frame in the pool exactly as the detector does here', async () => {
    const frame = await decodeImage(await animalScene({ coat: 2, shot: 1 }));
    const opts = { classes: ANIMAL_CLASS_IDS, minScore: 0.2 };
    const here = await (await loadDetector()).detect(frame, opts);
    const there = await pool.detect(frame, opts);
    expect(here.length).toBeGreaterThan(0);
    expect(there).toEqual(here);
  }, 60_000);

  it("takes a survey frame's four looks and its camera motion in the pool exactly as the survey thread did", async () => {
    // A wide frame (16:9), so the looks include the two tiles as well as the mirror.
    const scene = await decodeImage(await animalScene({ coat: 2, shot: 1 }));
    const frame = await sharp(scene.rgb, { raw: { width: scene.width, height: scene.height, channels: 3 } })
      .resize(640, 360, { fit: 'fill' })
      .raw()
      .toBuffer()
      .then((rgb) => ({ rgb, width: 640, height: 360 }));
    const opts = { classes: ANIMAL_CLASS_IDS, minScore: 0.05 };
    const here = await detectViews(await loadDetector(), frame, opts, DEFAULT_VIEWS);
    const there = await pool.detectLooks(frame, opts, DEFAULT_VIEWS);
    expect(here.length).toBeGreaterThan(0);
    expect(there).toEqual(here);

    // The camera pans 12 px right: the frame's content moves 12 px left.
    const wider = await sharp(frame.rgb, { raw: { width: 640, height: 360, channels: 3 } })
      .extend({ right: 12, extendWith: 'mirror' })
      .raw()
      .toBuffer();
    const panned = await sharp(wider, { raw: { width: 652, height: 360, channels: 3 } })
      .extract({ left: 12, top: 0, width: 640, height: 360 })
      .raw()
      .toBuffer();
    const [a, b] = await Promise.all([greyFrame(frame.rgb, 640, 360), greyFrame(panned, 640, 360)]);
    const H = await estimateMotion(a, b, []);
    expect(H[0]![2]).toBeCloseTo(-12, 0);
    expect(await pool.motion(a, b, [])).toEqual(H);
  }, 60_000);

  it("gives the engine's own error classes back across the thread boundary", async () => {
    await expect(pool.describe(new Uint8Array([1, 2, 3]), { kind: 'fruit' })).rejects.toBeInstanceOf(UndecodableImageError);
    const tiny = await textureImage(5, 40);
    const err = await pool.describe(tiny, { kind: 'fruit' }).catch((e) => e);
    expect(err).toBeInstanceOf(UnusableImageError);
    expect(err.reasons).toContain('too_small');
    expect(err.unrecoverable).toBe(true);
  }, 60_000);

  it('sizes ONNX intra-op threads so that pool × threads stays within the cores', () => {
    expect(poolSettings({}, 8)).toMatchObject({ size: 8, ortThreads: 1 });
    expect(poolSettings({ ENGINE_POOL_SIZE: '2' }, 8)).toMatchObject({ size: 2, ortThreads: 4 });
    expect(() => poolSettings({ ENGINE_BATCH_SIZE: '0' }, 2)).toThrow(/at least 1/);
  });
});
