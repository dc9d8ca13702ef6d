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
  // Each blob adds to the pixels within its radius, in blob order: the same sums, in the same
  // order, as visiting every blob from every pixel, at a fraction of the cost.
  const acc = new Float64Array(size * size);
  for (const b of blobs) {
    const r2 = b.rad * b.rad;
    for (let y = Math.max(0, Math.floor(b.y - b.rad)); y <= Math.min(size - 1, Math.ceil(b.y + b.rad)); y++) {
      for (let x = Math.max(0, Math.floor(b.x - b.rad)); x <= Math.min(size - 1, Math.ceil(b.x + b.rad)); x++) {
        const d2 = (x - b.x) ** 2 + (y - b.y) ** 2;
        if (d2 < r2) acc[y * size + x]! += b.v * (1 - d2 / r2);
      }
    }
  }
  const period = 5 + (seed % 7);
  for (let y = 0; y < size; y++) {
    const wave = 13 * Math.sin(y / 23 + seed);
    for (let x = 0; x < size; x++) {
      let v = acc[y * size + x]!;
      v += 25 * Math.sin((x + wave) / period);
      // Fine grain is part of the surface too: it gives local features something to hold on to.
      v += (r() - 0.5) * 36;
      const i = (y * size + x) * 3;
      for (let c = 0; c < 3; c++) px[i + c] = Math.max(0, Math.min(255, base[c]! + v));
    }
  }
  return sharp(px, { raw: { width: size, height: size, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
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

/** A uniform grey frame: what a covered lens or a blank wall gives. */
export function blankImage(size = 480): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .jpeg()
    .toBuffer();
}

/** A flower: smooth petals around a disc on a green ground. Not a kind the service identifies. */
export function flowerImage(seed: number, size = 480): Promise<Buffer> {
  const r = rng(seed);
  const petals = 5 + Math.floor(r() * 4);
  const hue = ['#e04070', '#f0c020', '#f08030', '#c050e0'][seed % 4]!;
  const c = size / 2;
  const shapes = Array.from({ length: petals }, (_, k) => {
    const a = (k / petals) * 360 + r() * 10;
    return `<ellipse cx="${c}" cy="${c - size * 0.2}" rx="${size * 0.09}" ry="${size * 0.2}" fill="${hue}" transform="rotate(${a} ${c} ${c})"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="100%" height="100%" fill="#3a7d32"/>${shapes}<circle cx="${c}" cy="${c}" r="${size * 0.07}" fill="#704010"/></svg>`;
  return sharp(Buffer.from(svg)).blur(1.2).jpeg({ quality: 90 }).toBuffer();
}

/** Processed goods: a printed carton with a label, bars of "text" and a barcode. */
export function packageImage(seed: number, size = 480): Promise<Buffer> {
  const r = rng(seed);
  const lines = Array.from(
    { length: 6 },
    (_, k) =>
      `<rect x="${size * 0.2}" y="${size * (0.45 + k * 0.05)}" width="${size * (0.3 + r() * 0.3)}" height="${size * 0.02}" fill="#222"/>`,
  ).join('');
  const bars = Array.from(
    { length: 30 },
    (_, k) => `<rect x="${size * 0.2 + k * 6}" y="${size * 0.8}" width="${1 + Math.floor(r() * 3)}" height="${size * 0.1}" fill="#000"/>`,
  ).join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="100%" height="100%" fill="#d8d0c0"/>` +
    `<rect x="${size * 0.15}" y="${size * 0.1}" width="${size * 0.7}" height="${size * 0.85}" fill="#f4f1e8" stroke="#b03020" stroke-width="8"/>` +
    `<rect x="${size * 0.2}" y="${size * 0.15}" width="${size * 0.6}" height="${size * 0.2}" fill="#b03020"/>${lines}${bars}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

/**
 * A packing house's batch of six files from three enrolled fruit's two photos each (`peels`):
 * A alone, two "fruit" whose views mix A's and B's photos (`fruit__view` names: the engine cannot
 * be sure which fruit each is), and C alone.
 */
export async function mixedViewsBatch(peels: Record<string, Buffer[]>): Promise<{ name: string; mimeType: string; buffer: Buffer }[]> {
  const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });
  return [
    jpeg('a.jpg', peels.A![0]!),
    jpeg('mix__1.jpg', peels.A![0]!),
    jpeg('mix__2.jpg', peels.B![0]!),
    jpeg('mix2__1.jpg', await otherView(peels.A![1]!, 7)),
    jpeg('mix2__2.jpg', await otherView(peels.B![1]!, 8)),
    jpeg('c.jpg', peels.C![0]!),
  ];
}
