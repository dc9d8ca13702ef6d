/**
 * Renders benchmark clips with known tracks: sprites moving over a world image, foreground
 * occluders, a camera window that pans, encoded with ffmpeg (H.264) frame by frame from a pipe.
 * The ground truth is computed from the same geometry. An actor's visible part is what of its box
 * lies inside the window and is hidden neither by an occluder nor by an actor in front (exact, on
 * the rectangles' edges); its visibility is that area over the whole box's (MOT17's visibility).
 * - visibility ≥ MIN_VISIBILITY (½): a scored GT box, the bounding box of the visible part: the
 *   extent a COCO detector is trained to draw (COCO boxes are of the visible animal, as the
 *   window's edge always cut them here), not the hidden animal's full extent that MOT17 asks for;
 * - 0 < visibility < ½: an ignored animal (`FrameBoxes.ignored`, same box): a prediction on it is
 *   neither a hit nor a false positive, nor is it a miss when none finds it, as MOTChallenge and
 *   KITTI score their distractors and heavily occluded objects (benchmarks/survey/mot-metrics.ts).
 *   Before this rule such an animal was left out of the truth altogether, so tracking the nyala
 *   stranger as it came out from behind the bush counted 31 false positives on the phone clip.
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

export interface Occluder {
  x: number;
  y: number;
  w: number;
  h: number;
  png: Buffer;
}

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

/** Below this share of its box visible an animal is ignored rather than scored (see the header). */
export const MIN_VISIBILITY = 0.5;

/**
 * The part of `b` inside `win` and outside every box of `covers`: its area and bounding box (null
 * when none shows). Exact: the covers' edges cut the box into cells that are wholly in or out.
 */
export function visiblePart(b: Box, win: Box, covers: Box[]): { area: number; box: Box | null } {
  const x0 = Math.max(b.x, win.x);
  const y0 = Math.max(b.y, win.y);
  const x1 = Math.min(b.x + b.w, win.x + win.w);
  const y1 = Math.min(b.y + b.h, win.y + win.h);
  if (x1 <= x0 || y1 <= y0) return { area: 0, box: null };
  const cuts = (lo: number, hi: number, edges: number[]) =>
    [...new Set([lo, hi, ...edges.filter((e) => e > lo && e < hi)])].sort((a, c) => a - c);
  const xs = cuts(
    x0,
    x1,
    covers.flatMap((c) => [c.x, c.x + c.w]),
  );
  const ys = cuts(
    y0,
    y1,
    covers.flatMap((c) => [c.y, c.y + c.h]),
  );
  let area = 0;
  let bx0 = Infinity,
    by0 = Infinity,
    bx1 = -Infinity,
    by1 = -Infinity;
  for (let i = 0; i + 1 < xs.length; i++) {
    for (let j = 0; j + 1 < ys.length; j++) {
      const cx = (xs[i]! + xs[i + 1]!) / 2;
      const cy = (ys[j]! + ys[j + 1]!) / 2;
      if (covers.some((c) => inside(c, cx, cy))) continue;
      area += (xs[i + 1]! - xs[i]!) * (ys[j + 1]! - ys[j]!);
      bx0 = Math.min(bx0, xs[i]!);
      bx1 = Math.max(bx1, xs[i + 1]!);
      by0 = Math.min(by0, ys[j]!);
      by1 = Math.max(by1, ys[j + 1]!);
    }
  }
  return { area, box: area > 0 ? { x: bx0, y: by0, w: bx1 - bx0, h: by1 - by0 } : null };
}

export function truth(s: Scene, f: number): FrameBoxes {
  const v = s.view.at(f);
  const win = { x: v.x, y: v.y, w: s.view.width, h: s.view.height };
  const boxes = s.actors.map((a) => ({ a, b: { ...a.at(f), w: a.w, h: a.h } }));
  const out: FrameBoxes = { ids: [], boxes: [], ignored: [] };
  for (const { a, b } of boxes) {
    const covers = [...s.occluders.map((o) => ({ x: o.x, y: o.y, w: o.w, h: o.h })), ...boxes.filter((o) => o.a.z > a.z).map((o) => o.b)];
    const seen = visiblePart(b, win, covers);
    if (!seen.box) continue;
    const box = { ...seen.box, x: seen.box.x - win.x, y: seen.box.y - win.y };
    if (seen.area / (b.w * b.h) < MIN_VISIBILITY) {
      out.ignored!.push(box);
      continue;
    }
    out.ids.push(a.id);
    out.boxes.push(box);
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
export async function renderClip(
  s: Scene,
  encodeAs?: { width: number; height: number },
  scale = 1,
): Promise<{ video: Buffer; gt: FrameBoxes[] }> {
  const k = scale;
  const sprites = new Map<Actor, Buffer>();
  for (const a of s.actors)
    sprites.set(
      a,
      await sharp(a.sprite)
        .resize(Math.round(a.w * k), Math.round(a.h * k), { fit: 'fill' })
        .png()
        .toBuffer(),
    );
  const occ = await Promise.all(
    s.occluders.map(async (o) => ({
      o,
      png: await sharp(o.png)
        .resize(Math.round(o.w * k), Math.round(o.h * k), { fit: 'fill' })
        .png()
        .toBuffer(),
    })),
  );
  const worldPng =
    k === 1
      ? s.world.png
      : await sharp(s.world.png)
          .resize(Math.round(s.world.width * k), Math.round(s.world.height * k), { fit: 'fill' })
          .png()
          .toBuffer();
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
      .extract({ left: Math.round(v.x * k), top: Math.round(v.y * k), width, height })
      .removeAlpha()
      .raw()
      .toBuffer();
    await enc.write(
      encodeAs
        ? await sharp(rgb, { raw: { width, height, channels: 3 } })
            .resize(encodeAs.width, encodeAs.height, { fit: 'fill' })
            .raw()
            .toBuffer()
        : rgb,
    );
    gt.push(truth(s, f));
  }
  return { video: await enc.finish(), gt };
}
