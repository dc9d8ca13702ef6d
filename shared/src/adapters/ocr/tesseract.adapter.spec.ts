import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepare } from './tesseract.adapter.js';

describe('tesseract preparation', () => {
  it('brings a photo of tens of megapixels down to the longer side it is given before reading', async () => {
    const big = await sharp({ create: { width: 7000, height: 5000, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const meta = await sharp(await prepare(big, 2400)).metadata();
    expect(meta.width).toBe(2400);
    expect(meta.height).toBe(Math.round((5000 * 2400) / 7000));
  });

  it('leaves a small photo at the width tesseract reads best, never above the cap', async () => {
    const small = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    expect((await sharp(await prepare(small, 2400)).metadata()).width).toBe(1500);
  });
});
