/**
 * Seeded synthetic "bark" textures for tests and the scale benchmark: value
 * noise at several octaves plus dark elongated cracks and lenticels, so every
 * seed gives a different individual with plenty of local structure.
 */
import sharp from 'sharp';
import { mulberry32 } from '../seeded.js';

export { mulberry32 };

const memo = new Map<string, Buffer>();

/** Raw RGB pixels of a seeded bark-like texture (memoised: tests reuse seeds). */
export function barkPixels(seed: number, size = 480): Buffer {
  const key = `${seed}:${size}`;
  let px = memo.get(key);
  if (!px) {
    px = renderBark(seed, size);
    if (memo.size > 64) memo.clear();
    memo.set(key, px);
  }
  return px;
}

function renderBark(seed: number, size: number): Buffer {
  const rnd = mulberry32(seed);
  const grey = new Float32Array(size * size);
  for (const cell of [64, 24, 8]) {
    const n = Math.ceil(size / cell) + 2;
    const grid = Float32Array.from({ length: n * n }, () => rnd());
    const amp = cell / 64;
    for (let y = 0; y < size; y++) {
      const gy = y / cell;
      const y0 = Math.floor(gy);
      const fy = gy - y0;
      for (let x = 0; x < size; x++) {
        const gx = x / cell;
        const x0 = Math.floor(gx);
        const fx = gx - x0;
        const a = grid[y0 * n + x0]! * (1 - fx) + grid[y0 * n + x0 + 1]! * fx;
        const b = grid[(y0 + 1) * n + x0]! * (1 - fx) + grid[(y0 + 1) * n + x0 + 1]! * fx;
        grey[y * size + x]! += amp * (a * (1 - fy) + b * fy);
      }
    }
  }
  // Cracks: dark random walks, mostly vertical like bark furrows.
  for (let c = 0; c < 40; c++) {
    let x = rnd() * size;
    let y = rnd() * size;
    const len = 40 + rnd() * 160;
    const w = 1 + Math.floor(rnd() * 3);
    for (let s = 0; s < len; s++) {
      x += (rnd() - 0.5) * 2;
      y += 1;
      for (let dx = -w; dx <= w; dx++) {
        const xi = Math.round(x) + dx;
        const yi = Math.round(y) % size;
        if (xi >= 0 && xi < size) grey[yi * size + xi] = 0;
      }
    }
  }
  const rgb = Buffer.alloc(size * size * 3);
  const tint = [0.55 + 0.2 * rnd(), 0.45 + 0.15 * rnd(), 0.35 + 0.1 * rnd()];
  for (let i = 0; i < size * size; i++) {
    const v = Math.min(1, grey[i]! / 1.6);
    for (let ch = 0; ch < 3; ch++) rgb[i * 3 + ch] = Math.round(255 * Math.min(1, v * tint[ch]! * 1.8));
  }
  return rgb;
}

export interface ViewOptions {
  left: number;
  top: number;
  size: number;
  rotate?: number;
  brightness?: number;
}

/** A JPEG of one view (crop, rotation, brightness change) of a seeded texture. */
export async function barkView(seed: number, view: ViewOptions, full = 480): Promise<Buffer> {
  const px = barkPixels(seed, full);
  let img = sharp(px, { raw: { width: full, height: full, channels: 3 } }).extract({
    left: view.left,
    top: view.top,
    width: view.size,
    height: view.size,
  });
  const cropped = await img.png().toBuffer();
  img = sharp(cropped);
  if (view.rotate) img = img.rotate(view.rotate, { background: { r: 90, g: 70, b: 50 } });
  if (view.brightness) img = img.modulate({ brightness: view.brightness });
  return img.jpeg({ quality: 90 }).toBuffer();
}
