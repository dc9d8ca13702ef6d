/**
 * Generated survey clips for tests: the generated field animals of `vision/testing/animal-scene`
 * (a horse silhouette with a seeded coat: one seed, one individual) walking over the same field,
 * optionally with a camera pan, drawn with sharp frame by frame and piped into ffmpeg. No
 * photograph is involved, and the same options always give the same clip.
 */
import { mp4Encoder } from './mp4-encoder.js';
import sharp from 'sharp';
import { ANIMAL_BOUNDS, animalScene, SCENE_HEIGHT, SCENE_WIDTH } from '../../vision/testing/animal-scene.js';

export interface ClipAnimal {
  coat: number;
  /** Position of the animal's left edge in world pixels (the field is `worldWidth` wide) at frame f. */
  x: (f: number) => number;
  /** Frames in which it is hidden (left out of the frame), e.g. behind a shed. */
  hidden?: (f: number) => boolean;
}

export interface ClipOptions {
  animals: ClipAnimal[];
  frames: number;
  fps?: number;
  /** World width in scene pixels (scenes are 640×480; the field repeats). */
  worldWidth?: number;
  /** Visible window width in world pixels, and its left edge at frame f (camera pan). */
  view?: { width: number; x: (f: number) => number };
  /** Output size. */
  out?: { width: number; height: number };
}

/** One animal cut from its scene (ears to hooves, with the scene's own sky and grass around it). */
async function sprite(coat: number): Promise<Buffer> {
  const png = await animalScene({ coat, format: 'png' });
  return sharp(png)
    .extract({ left: ANIMAL_BOUNDS.x, top: ANIMAL_BOUNDS.y, width: ANIMAL_BOUNDS.w, height: ANIMAL_BOUNDS.h })
    .png()
    .toBuffer();
}

/** Renders the world frames and encodes them as H.264 MP4; returns the bytes. */
export async function herdClip(o: ClipOptions): Promise<Buffer> {
  const fps = o.fps ?? 10;
  const worldWidth = o.worldWidth ?? SCENE_WIDTH * 2;
  const view = o.view ?? { width: worldWidth, x: () => 0 };
  const out = o.out ?? { width: 640, height: Math.round((SCENE_HEIGHT * 640) / view.width / 2) * 2 };
  const empty = await animalScene({ coat: 0, empty: true, format: 'png' });
  const tiles = Math.ceil(worldWidth / SCENE_WIDTH);
  const field = await sharp({ create: { width: tiles * SCENE_WIDTH, height: SCENE_HEIGHT, channels: 3, background: '#000' } })
    .composite(Array.from({ length: tiles }, (_, i) => ({ input: empty, left: i * SCENE_WIDTH, top: 0 })))
    .png()
    .toBuffer();
  const sprites = new Map<number, Buffer>();
  for (const a of o.animals) if (!sprites.has(a.coat)) sprites.set(a.coat, await sprite(a.coat));
  const enc = mp4Encoder(out.width, out.height, fps, 20);
  for (let f = 0; f < o.frames; f++) {
    const layers = o.animals
      .filter((a) => !a.hidden?.(f))
      .map((a) => ({ input: sprites.get(a.coat)!, left: Math.round(a.x(f)), top: ANIMAL_BOUNDS.y }))
      .filter((l) => l.left > -ANIMAL_BOUNDS.w && l.left < tiles * SCENE_WIDTH);
    // Sprites partly off the field are clipped by sharp only when inside; keep them inside the world.
    const world = await sharp(field)
      .composite(layers.map((l) => ({ ...l, left: Math.max(0, Math.min(tiles * SCENE_WIDTH - ANIMAL_BOUNDS.w, l.left)) })))
      .png()
      .toBuffer();
    const left = Math.max(0, Math.min(tiles * SCENE_WIDTH - view.width, Math.round(view.x(f))));
    const rgb = await sharp(world)
      .extract({ left, top: 0, width: view.width, height: SCENE_HEIGHT })
      .resize(out.width, out.height, { fit: 'fill' })
      .removeAlpha()
      .raw()
      .toBuffer();
    await enc.write(rgb);
  }
  return enc.finish();
}
