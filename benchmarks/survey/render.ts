/**
 * Renders benchmark clips with known tracks: sprites moving over a world image, foreground
 * occluders, a camera window that pans, encoded with ffmpeg (H.264) frame by frame from a pipe.
 * The ground truth is computed from the same geometry: every actor whose box is at least half
 * visible (inside the window, not hidden by an occluder or an actor in front) is a GT box.
 */
import { mp4Encoder } from '../../workers/src/survey/testing/mp4-encoder.js';
import sharp from 'sharp';
import type { Box } from '../../workers/src/survey/tracker.js';
import type { FrameBoxes } from './mot-metrics.js';

export interface Actor {
  id: string;
  /** PNG (alpha allowed) drawn at w×h world pixels. */
  sprite: Buffer;
  w: number;
  h: number;
  /** World top-left at frame f. */
  at: (f: number) => { x: number; y: number };
  /** Larger is nearer the camera. */
  z: number;
}

export interface Occluder { x: number; y: number; w: number; h: number; png: Buffer }

export interface Scene {
  world: { width: number; height: number; png: Buffer };
  actors: Actor[];
  occluders: Occluder[];
  /** Camera window (world pixels, output size) and its top-left at frame f. */
  view: { width: number; height: number; at: (f: number) => { x: number; y: number } };
  frames: number;
  fps: number;
}

const inside = (b: Box, x: number, y: number) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h;

function truth(s: Scene, f: number): FrameBoxes {
  const v = s.view.at(f);
  const win = { x: v.x, y: v.y, w: s.view.width, h: s.view.height };
  const boxes = s.actors.map((a) => ({ a, b: { ...a.at(f), w: a.w, h: a.h } }));
  const out: FrameBoxes = { ids: [], boxes: [] };
  for (const { a, b } of boxes) {
    let seen = 0;
    const N = 10;
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < N; j++) {
        const x = b.x + ((i + 0.5) / N) * b.w;
        const y = b.y + ((j + 0.5) / N) * b.h;
        if (!inside(win, x, y)) continue;
        if (s.occluders.some((o) => inside(o, x, y))) continue;
        if (boxes.some((o) => o.a.z > a.z && inside(o.b, x, y))) continue;
        seen++;
      }
    }
    if (seen < (N * N) / 2) continue;
    const x0 = Math.max(b.x, win.x);
    const y0 = Math.max(b.y, win.y);
    const x1 = Math.min(b.x + b.w, win.x + win.w);
    const y1 = Math.min(b.y + b.h, win.y + win.h);
    out.ids.push(a.id);
    out.boxes.push({ x: x0 - win.x, y: y0 - win.y, w: x1 - x0, h: y1 - y0 });
  }
  return out;
}

/**
 * `encodeAs`: encode every frame at this size instead of the view's (a 1280×720 source for the
 * 720p speed pass); the ground truth stays in view pixels.
 * `scale`: draw the whole scene `scale` times larger (2: a 960×540 view becomes a 1920×1080
 * video whose animals are drawn from their photos at twice the pixels, not enlarged frames);
 * the ground truth stays in view pixels, which are the survey's detection frames at maxSide 960.
 */
export async function renderClip(s: Scene, encodeAs?: { width: number; height: number }, scale = 1): Promise<{ video: Buffer; gt: FrameBoxes[] }> {
  const k = scale;
  const sprites = new Map<Actor, Buffer>();
  for (const a of s.actors) sprites.set(a, await sharp(a.sprite).resize(Math.round(a.w * k), Math.round(a.h * k), { fit: 'fill' }).png().toBuffer());
  const occ = await Promise.all(s.occluders.map(async (o) => ({ o, png: await sharp(o.png).resize(Math.round(o.w * k), Math.round(o.h * k), { fit: 'fill' }).png().toBuffer() })));
  const worldPng = k === 1 ? s.world.png : await sharp(s.world.png).resize(Math.round(s.world.width * k), Math.round(s.world.height * k), { fit: 'fill' }).png().toBuffer();
  const width = Math.round(s.view.width * k);
  const height = Math.round(s.view.height * k);
  const enc = mp4Encoder(encodeAs?.width ?? width, encodeAs?.height ?? height, s.fps, 18);
  const gt: FrameBoxes[] = [];
  for (let f = 0; f < s.frames; f++) {
    const v = s.view.at(f);
    const layers = [...s.actors].sort((a, b) => a.z - b.z).map((a) => ({ a, p: a.at(f) }));
    const comps = [
      ...layers.map(({ a, p }) => ({ input: sprites.get(a)!, left: Math.round(p.x * k), top: Math.round(p.y * k) })),
      ...occ.map(({ o, png }) => ({ input: png, left: Math.round(o.x * k), top: Math.round(o.y * k) })),
    ].filter((c) => c.left >= 0 && c.top >= 0);
    const world = await sharp(worldPng).composite(comps).raw().toBuffer({ resolveWithObject: true });
    const rgb = await sharp(world.data, { raw: { width: world.info.width, height: world.info.height, channels: world.info.channels } })
      .extract({ left: Math.round(v.x * k), top: Math.round(v.y * k), width, height }).removeAlpha().raw().toBuffer();
    await enc.write(encodeAs ? await sharp(rgb, { raw: { width, height, channels: 3 } }).resize(encodeAs.width, encodeAs.height, { fit: 'fill' }).raw().toBuffer() : rgb);
    gt.push(truth(s, f));
  }
  return { video: await enc.finish(), gt };
}
