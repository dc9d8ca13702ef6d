/**
 * The benchmark's scenes: a drone pass and a phone walk over a generated field with real nyala
 * crops (../shared/datasets, read at run time, never copied), and a phone walk along a generated
 * apple tree. Positions are written out so the paths cross and hide as docs/surveys.md describes.
 */
import sharp from 'sharp';
import { mulberry32 } from '../../workers/src/vision/testing/synthetic.js';
import type { Actor, Scene } from './render.js';

/** A textured field (grass tufts, stones): corners for the camera-motion estimate to follow. */
export async function field(width: number, height: number, seed: number): Promise<Buffer> {
  const r = mulberry32(seed);
  const shapes: string[] = [];
  const greens = ['#5d7d34', '#6b8f3a', '#4f6d2b', '#7a9a4a', '#8a8a5a'];
  for (let i = 0; i < (width * height) / 900; i++) {
    const x = r() * width;
    const y = r() * height;
    shapes.push(
      `<ellipse cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" rx="${(2 + r() * 9).toFixed(1)}" ry="${(1 + r() * 4).toFixed(1)}" fill="${greens[Math.floor(r() * greens.length)]}" transform="rotate(${Math.round(r() * 180)} ${x.toFixed(1)} ${y.toFixed(1)})"/>`,
    );
  }
  for (let i = 0; i < (width * height) / 20000; i++)
    shapes.push(
      `<circle cx="${(r() * width).toFixed(1)}" cy="${(r() * height).toFixed(1)}" r="${(3 + r() * 6).toFixed(1)}" fill="#9a9488"/>`,
    );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#66873a"/>${shapes.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A leafy bush (alpha PNG) to hide animals behind. */
export async function bush(seed: number): Promise<Buffer> {
  const r = mulberry32(seed);
  const leaves = Array.from({ length: 260 }, () => {
    const x = 10 + r() * 180;
    const y = 10 + r() * 380;
    return `<ellipse cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" rx="${(8 + r() * 10).toFixed(1)}" ry="${(4 + r() * 5).toFixed(1)}" fill="${['#2f6b22', '#3a7d2a', '#275a1c', '#4a8a33'][Math.floor(r() * 4)]}" transform="rotate(${Math.round(r() * 180)} ${x.toFixed(1)} ${y.toFixed(1)})"/>`;
  }).join('');
  return sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="400"><rect x="20" y="20" width="160" height="360" rx="60" fill="#2f6222"/>${leaves}</svg>`,
    ),
  )
    .png()
    .toBuffer();
}

const lin = (x0: number, y0: number, vx: number, vy: number) => (f: number) => ({ x: x0 + vx * f, y: y0 + vy * f });

/** Animal heights in the drone and phone clips (px in a 960×540 view); the cast is checked for detection at the drone's (survey.ts). */
export const DRONE_HEIGHT = 100;
export const PHONE_HEIGHTS = [210, 189] as const;

/** Drone: five small animals on a 1800×540 field, the camera panning right 17 px a frame; two cross paths. */
export async function droneScene(sprites: { id: string; png: Buffer; aspect: number }[], frames = 48): Promise<Scene> {
  const h = DRONE_HEIGHT;
  const at = [lin(120, 60, 3, 1.5), lin(420, 300, 2, -1), lin(700, 120, 4, 2.5), lin(1000, 330, -3, -2.6), lin(1350, 200, -2, 1)];
  const actors: Actor[] = sprites.slice(0, 5).map((s, i) => ({ id: s.id, sprite: s.png, w: h * s.aspect, h, at: at[i]!, z: i }));
  return {
    world: { width: 1800, height: 540, png: await field(1800, 540, 11) },
    actors,
    occluders: [],
    view: { width: 960, height: 540, at: (f) => ({ x: Math.min(840, 17.5 * f), y: 0 }) },
    frames,
    fps: 10,
  };
}

/** Phone: three large animals; two cross (one in front), the third walks behind a bush; the camera pans 5 px a frame. */
export async function phoneScene(sprites: { id: string; png: Buffer; aspect: number }[], frames = 48): Promise<Scene> {
  const [h, far] = PHONE_HEIGHTS;
  const [a, b, c] = sprites;
  const actors: Actor[] = [
    { id: a!.id, sprite: a!.png, w: h * a!.aspect, h, at: lin(40, 250, 11, 0), z: 1 },
    { id: b!.id, sprite: b!.png, w: h * b!.aspect, h, at: lin(760, 270, -10, 0), z: 2 },
    { id: c!.id, sprite: c!.png, w: far * c!.aspect, h: far, at: lin(700, 20, 9, 0), z: 0 },
  ];
  return {
    world: { width: 1300, height: 540, png: await field(1300, 540, 12) },
    actors,
    occluders: [{ x: 900, y: 0, w: 150, h: 260, png: await bush(3) }],
    view: { width: 960, height: 540, at: (f) => ({ x: Math.min(340, 5 * f), y: 0 }) },
    frames,
    fps: 10,
  };
}

function appleSvg(r: number, seed: number): string {
  const red = ['#c8141e', '#b3121a', '#d42a1e', '#a8161c'][seed % 4];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * r + 4}" height="${2 * r + 4}"><defs><radialGradient id="g" cx="0.35" cy="0.35" r="0.75"><stop offset="0" stop-color="#ff5a4a"/><stop offset="0.6" stop-color="${red}"/><stop offset="1" stop-color="#6e0a10"/></radialGradient></defs>
  <circle cx="${r + 2}" cy="${r + 2}" r="${r}" fill="url(#g)"/><path d="M ${r + 2} ${0.25 * r} q ${0.1 * r} ${-0.2 * r} ${0.25 * r} ${-0.22 * r}" stroke="#4a2a10" stroke-width="${0.12 * r}" fill="none"/>
  <ellipse cx="${0.65 * r + 2}" cy="${0.65 * r + 2}" rx="${0.18 * r}" ry="${0.12 * r}" fill="#fff" opacity="0.5"/></svg>`;
}

/** A tree row: canopy across a 1500-px world with eight apples; the phone walks along it (13.5 px a frame). */
export async function fruitScene(frames = 40): Promise<Scene> {
  const r = mulberry32(5);
  const W = 1500;
  const leaves = Array.from({ length: 900 }, () => {
    const x = 40 + r() * (W - 80);
    const y = 40 + r() * 380;
    return `<ellipse cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" rx="${(8 + r() * 8).toFixed(1)}" ry="${(3 + r() * 4).toFixed(1)}" fill="${['#2f6b22', '#3a7d2a', '#275a1c', '#4a8a33'][Math.floor(r() * 4)]}" transform="rotate(${Math.round(r() * 180)} ${x.toFixed(1)} ${y.toFixed(1)})"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="540"><rect width="${W}" height="540" fill="#9cc3e6"/><rect y="420" width="${W}" height="120" fill="#6b8f3a"/>
  <rect x="380" y="300" width="50" height="240" fill="#5a3a1e"/><rect x="1080" y="300" width="50" height="240" fill="#5a3a1e"/>
  <rect x="20" y="20" width="${W - 40}" height="410" rx="180" fill="#336e25"/>${leaves}</svg>`;
  const spots = [
    [120, 110],
    [300, 260],
    [470, 130],
    [640, 300],
    [800, 150],
    [980, 270],
    [1150, 120],
    [1320, 280],
  ];
  const actors: Actor[] = [];
  for (const [i, [x, y]] of spots.entries()) {
    const rad = 44 + (i % 3) * 2;
    actors.push({
      id: `apple-${i + 1}`,
      sprite: await sharp(Buffer.from(appleSvg(rad, i)))
        .png()
        .toBuffer(),
      w: 2 * rad + 4,
      h: 2 * rad + 4,
      at: () => ({ x: x!, y: y! }),
      z: 1,
    });
  }
  return {
    world: { width: W, height: 540, png: await sharp(Buffer.from(svg)).png().toBuffer() },
    actors,
    occluders: [],
    view: { width: 960, height: 540, at: (f) => ({ x: Math.min(540, 13.5 * f), y: 0 }) },
    frames,
    fps: 10,
  };
}
