import sharp from 'sharp';
import { mulberry32 } from '../../workers/src/vision/testing/synthetic.js';

/** Seeded, so every generated image is the same on every run. */
export const rng = mulberry32;

/**
 * A bark-like texture unique to `seed`: random blobs and ridges over a brown base, sized
 * `size`×`size`. Different seeds give different individuals; the same seed the same surface.
 */
export async function textureImage(seed: number, size = 512): Promise<Buffer> {
  const r = rng(seed);
  const px = Buffer.alloc(size * size * 3);
  const base = [90 + r() * 60, 60 + r() * 40, 30 + r() * 30];
  const blobs = Array.from({ length: 140 }, () => ({ x: r() * size, y: r() * size, rad: 4 + r() * 28, v: (r() - 0.5) * 140 }));
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let v = 0;
      for (const b of blobs) {
        const d2 = (x - b.x) ** 2 + (y - b.y) ** 2;
        if (d2 < b.rad * b.rad) v += b.v * (1 - d2 / (b.rad * b.rad));
      }
      v += 25 * Math.sin((x + 13 * Math.sin(y / 23 + seed)) / (5 + (seed % 7)));
      // Fine grain is part of the surface too: it gives local features something to hold on to.
      v += (r() - 0.5) * 36;
      const i = (y * size + x) * 3;
      for (let c = 0; c < 3; c++) px[i + c] = Math.max(0, Math.min(255, base[c]! + v));
    }
  }
  return sharp(px, { raw: { width: size, height: size, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
}

/** Another view of the same surface: a crop, a slight rotation and a brightness change. */
export async function otherView(image: Buffer, seed: number): Promise<Buffer> {
  const r = rng(seed * 7919 + 1);
  const meta = await sharp(image).metadata();
  const side = Math.round(meta.width! * (0.8 + r() * 0.1));
  const left = Math.round(r() * (meta.width! - side));
  const top = Math.round(r() * (meta.height! - side));
  return sharp(image)
    .extract({ left, top, width: side, height: side })
    .rotate((r() - 0.5) * 10, { background: '#555' })
    .modulate({ brightness: 0.9 + r() * 0.2 })
    .resize(480, 480)
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** Multipart form with the given photos under `files`, plus plain fields. */
export function photoForm(photos: Buffer[], fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  photos.forEach((p, i) => form.append('files', new Blob([p], { type: 'image/jpeg' }), `photo-${i}.jpg`));
  return form;
}
