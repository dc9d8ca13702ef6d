/**
 * Generated field scenes for tests: a four-legged animal (a shaded horse
 * silhouette, which YOLOX-nano reads as a horse) standing on grass under a
 * sky, its coat filled with a seeded texture so that every seed is a
 * different individual. No photograph is involved.
 */
import sharp from 'sharp';
import { barkPixels, mulberry32 } from './synthetic.js';

export interface SceneOptions {
  /** Coat texture seed (the individual). */
  coat: number;
  /** Scene seed: grain noise (another photo of the same individual). */
  shot?: number;
  /** Horizontal shift of the animal in pixels (default 0). */
  dx?: number;
  /** Leave the animal out: grass and sky only. */
  empty?: boolean;
  /** Output JPEG (default) or PNG. */
  format?: 'jpeg' | 'png';
}

export const SCENE_WIDTH = 640;
export const SCENE_HEIGHT = 480;
/** Where the drawn animal lies at dx = 0 (ears to hooves, tail to muzzle). */
export const ANIMAL_BOUNDS = { x: 128, y: 32, w: 475, h: 380 };

const TORSO = 'M 150 200 C 150 150, 230 140, 330 150 C 420 150, 470 160, 480 210 C 485 260, 450 300, 330 300 C 230 300, 160 290, 150 250 Z';

function leg(x: number, y: number, bend: number): string {
  return `<path d="M ${x} ${y} C ${x + bend} ${y + 50}, ${x - bend} ${y + 90}, ${x + 2} ${y + 140} L ${x + 16} ${y + 140} C ${x + 14} ${y + 90}, ${x + 24 + bend} ${y + 50}, ${x + 30} ${y}" fill="url(#body)"/><rect x="${x}" y="${y + 132}" width="18" height="12" rx="3" fill="#222"/>`;
}

async function coatUri(seed: number): Promise<string> {
  const size = 384;
  const grey = barkPixels(seed, size);
  // A brown coat whose shading follows the seeded texture: the pattern is the individual,
  // the colour keeps it a plausible animal for a COCO detector.
  const rgb = Buffer.alloc(grey.length);
  for (let i = 0; i < grey.length; i += 3) {
    const v = 0.55 + (0.9 * grey[i]!) / 255;
    rgb[i] = Math.min(255, 139 * v);
    rgb[i + 1] = Math.min(255, 90 * v);
    rgb[i + 2] = Math.min(255, 43 * v);
  }
  const png = await sharp(rgb, { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

function svg(coat: string | null, dx: number): string {
  const animal =
    coat === null
      ? ''
      : `<g transform="translate(${dx},0)">
  ${leg(170, 260, 6)}${leg(215, 265, -6)}${leg(420, 260, 5)}${leg(455, 262, -5)}
  <path d="${TORSO}" fill="url(#body)"/>
  <g clip-path="url(#torso)"><image href="${coat}" x="140" y="130" width="350" height="180" preserveAspectRatio="none" opacity="0.85"/></g>
  <path d="M 440 170 C 470 120, 490 90, 510 70 L 545 85 C 540 120, 515 170, 480 215 Z" fill="url(#body)"/>
  <path d="M 500 60 C 520 45, 545 50, 560 65 L 600 120 C 605 135, 590 145, 575 140 L 535 110 C 520 100, 505 85, 500 60 Z" fill="url(#body)"/>
  <ellipse cx="588" cy="132" rx="14" ry="10" fill="#2a2a2a"/><circle cx="540" cy="78" r="5" fill="#111"/>
  <path d="M 515 58 L 510 35 L 527 52 Z" fill="#4a2a10"/><path d="M 528 55 L 530 32 L 540 55 Z" fill="#4a2a10"/>
  <path d="M 152 205 C 130 230, 128 280, 135 330" stroke="#4a2a10" stroke-width="8" fill="none"/></g>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SCENE_WIDTH}" height="${SCENE_HEIGHT}">
  <defs>
   <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7fa7d1"/><stop offset="1" stop-color="#cfe0ee"/></linearGradient>
   <linearGradient id="grass" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7a9a4a"/><stop offset="1" stop-color="#4c6b28"/></linearGradient>
   <radialGradient id="body" cx="0.45" cy="0.3" r="0.8"><stop offset="0" stop-color="#8b5a2b"/><stop offset="1" stop-color="#4a2a10"/></radialGradient>
   <clipPath id="torso"><path d="${TORSO}"/></clipPath>
  </defs>
  <rect width="${SCENE_WIDTH}" height="230" fill="url(#sky)"/><rect y="230" width="${SCENE_WIDTH}" height="250" fill="url(#grass)"/>
  ${animal}</svg>`;
}

/** Renders one scene; the same options always give the same bytes. */
export async function animalScene(opts: SceneOptions): Promise<Buffer> {
  const coat = opts.empty ? null : await coatUri(opts.coat);
  const base = await sharp(Buffer.from(svg(coat, opts.dx ?? 0)))
    .removeAlpha()
    .raw()
    .toBuffer();
  // Sensor grain, seeded per shot: two shots of one animal differ a little, as photos do.
  const r = mulberry32(0x5eed + (opts.shot ?? 0) * 7919 + opts.coat);
  // Light changes between shots too (0.86-1.14 gain), as it does between real photos taken from
  // other angles, so no two shots of one animal look near-identical to enrolment's duplicate check.
  const gain = opts.shot ? 0.86 + ((opts.shot * 53) % 29) / 100 : 1;
  for (let k = 0; k < base.length; k++) base[k] = Math.max(0, Math.min(255, base[k]! * gain + (r() - 0.5) * 24));
  const img = sharp(base, { raw: { width: SCENE_WIDTH, height: SCENE_HEIGHT, channels: 3 } }).blur(0.6);
  return opts.format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}
