import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ANIMAL_CLASSES, detectObjects } from './detect.js';
import { decodeImage } from './intake.js';
import { barkPixels } from './testing/synthetic.js';

describe('detectObjects', () => {
  it('loads the bundled COCO detector and finds no animal in a bark texture', async () => {
    const png = await sharp(barkPixels(4, 320), { raw: { width: 320, height: 320, channels: 3 } }).png().toBuffer();
    const img = await decodeImage(png);
    const dets = await detectObjects(img, 0.3);
    for (const d of dets) {
      expect(d.x + d.width).toBeLessThanOrEqual(img.width);
      expect(d.y + d.height).toBeLessThanOrEqual(img.height);
    }
    expect(dets.filter((d) => ANIMAL_CLASSES.has(d.cls))).toEqual([]);
  }, 60_000);
});
