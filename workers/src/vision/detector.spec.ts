import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ANIMAL_CLASS_IDS, COCO_LABELS, cropToBox, decodeYolox, iou, loadDetector, pickSubject, type Detection } from './detector.js';
import { decodeImage } from './intake.js';
import { ANIMAL_BOUNDS, animalScene } from './testing/animal-scene.js';
import { barkPixels } from './testing/synthetic.js';

describe('YOLOX-nano detector', () => {
  it('finds the animal in a generated field scene, where it was drawn, and crops it with a margin', async () => {
    const det = await loadDetector();
    expect(det.model).toEqual({ name: 'yolox-nano-coco', version: det.entry.version });
    const img = await decodeImage(await animalScene({ coat: 2 }));
    const dets = await det.detect(img, { classes: ANIMAL_CLASS_IDS, minScore: 0.2 });
    expect(dets.length).toBeGreaterThan(0);
    for (const d of dets) {
      expect(ANIMAL_CLASS_IDS).toContain(d.cocoClass);
      expect(d.label).toBe(COCO_LABELS[d.cocoClass]);
      expect(d.box.x + d.box.w).toBeLessThanOrEqual(img.width);
      expect(d.box.y + d.box.h).toBeLessThanOrEqual(img.height);
    }
    const subject = pickSubject(dets)!;
    // The drawn animal's torso and legs at least: the box must overlap it well.
    expect(iou(subject.box, ANIMAL_BOUNDS)).toBeGreaterThan(0.5);
    const crop = await cropToBox(img, subject.box, { margin: 0.1 });
    expect(crop.box.x).toBeLessThanOrEqual(subject.box.x);
    expect(crop.box.x + crop.box.w).toBeGreaterThanOrEqual(subject.box.x + subject.box.w - 1);
    expect(crop.image.width).toBe(crop.box.w);
    expect(crop.image.rgb.length).toBe(crop.box.w * crop.box.h * 3);
  }, 60_000);

  it('follows the animal when it moves and accepts encoded bytes', async () => {
    const det = await loadDetector();
    const moved = await det.detect(new Uint8Array(await animalScene({ coat: 2, shot: 1, dx: -40 })), {
      classes: ANIMAL_CLASS_IDS,
      minScore: 0.2,
    });
    const b = pickSubject(moved)!.box;
    expect(iou(b, { ...ANIMAL_BOUNDS, x: ANIMAL_BOUNDS.x - 40 })).toBeGreaterThan(0.5);
  }, 60_000);

  it('finds no animal in an empty field or a bark close-up', async () => {
    const det = await loadDetector();
    const empty = await det.detect(new Uint8Array(await animalScene({ coat: 2, empty: true })), {
      classes: ANIMAL_CLASS_IDS,
      minScore: 0.2,
    });
    expect(empty).toEqual([]);
    const png = await sharp(barkPixels(4, 320), { raw: { width: 320, height: 320, channels: 3 } })
      .png()
      .toBuffer();
    expect(await det.detect(await decodeImage(png), { classes: ANIMAL_CLASS_IDS, minScore: 0.3 })).toEqual([]);
  }, 60_000);

  it('decodes a raw grid output: strides, class filter, score floor and NMS', () => {
    const row = 85;
    const raw = new Float32Array(3549 * row);
    // Cell (gx=10, gy=5) of the stride-8 grid: a cow centred at (84, 44) px, 8·e^1 wide.
    const put = (cell: number, cls: number, obj: number, p: number, dx = 0.5) => {
      raw.set([dx, 0.5, 1, 0.5, obj], cell * row);
      raw[cell * row + 5 + cls] = p;
    };
    put(5 * 52 + 10, 19, 0.9, 0.9);
    put(5 * 52 + 11, 19, 0.8, 0.8, -0.5); // the same cow from the next cell: suppressed
    put(52 * 52 + 3, 0, 0.9, 0.9); // a person on the stride-16 grid
    const geo = { side: 416, scale: 0.5, width: 832, height: 600 };
    const all = decodeYolox(raw, geo, { minScore: 0.3 });
    expect(all.map((d: Detection) => d.label)).toEqual(['cow', 'person']);
    const cow = all[0]!;
    expect(cow.score).toBeCloseTo(0.81, 5);
    const w = 8 * Math.E;
    expect(cow.box.x).toBeCloseTo((84 - w / 2) / 0.5, 3);
    expect(cow.box.w).toBeCloseTo(w / 0.5, 3);
    expect(decodeYolox(raw, geo, { minScore: 0.3, classes: ANIMAL_CLASS_IDS }).map((d) => d.label)).toEqual(['cow']);
    expect(decodeYolox(raw, geo, { minScore: 0.85 })).toEqual([]);
  });
});
