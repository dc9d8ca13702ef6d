/**
 * Casting survey clips from a dataset's real photos (holstein-dev, nyala-dev: `protocol.json` with
 * `gallery` and `queries`): each cast member is the largest confident animal of one *query* photo,
 * cut out at the detector's box, kept only when the detector still finds it at drone scale. Used by
 * the survey benchmark (benchmarks/survey.ts) and by test/real/survey-clip.spec.ts, so both cast
 * the same animals the same way. The photos are read from the dataset, never copied.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { COCO_ANIMAL_IDS } from '../../workers/src/vision/animal-detector.js';
import type { Detector } from '../../workers/src/vision/detector.js';
import { mergeClasses } from '../../workers/src/survey/pipeline.js';
import { iou } from '../../workers/src/survey/tracker.js';
import { DRONE_HEIGHT, field } from './scenes.js';

/** What casting reads of a dataset's protocol.json. */
export interface CastProtocol {
  gallery: { id: string; path: string }[];
  queries: { path: string; expect: string | null }[];
}

/** A cast animal: its individual id (or `stranger:<folder>`), its sprite and the sprite's width/height. */
export interface CastMember {
  id: string;
  png: Buffer;
  aspect: number;
}

type Detects = Pick<Detector, 'detect'>;

/** The largest confident animal of a photo, cut out at its box: a sprite, with its width/height. */
export async function spriteOf(detector: Detects, root: string, file: string): Promise<{ png: Buffer; aspect: number } | null> {
  const bytes = await readFile(path.join(root, file));
  const dets = await detector.detect(new Uint8Array(bytes), { classes: COCO_ANIMAL_IDS, minScore: 0.45 });
  const best = [...dets].sort((a, b) => b.box.w * b.box.h - a.box.w * a.box.h)[0];
  if (!best || best.box.h < 80 || best.box.w < 80) return null;
  const b = best.box;
  const png = await sharp(bytes)
    .rotate()
    .resize(1280, 1280, { fit: 'inside', withoutEnlargement: true })
    .extract({ left: Math.round(b.x), top: Math.round(b.y), width: Math.round(b.w), height: Math.round(b.h) })
    .png()
    .toBuffer();
  return (await detectableAt(detector, png, b.w / b.h, DRONE_HEIGHT)) ? { png, aspect: b.w / b.h } : null;
}

/**
 * Whether the detector still finds the crop at drone scale (`h` px tall in a 960×540 field):
 * the cast is chosen among animals the detector can see, so the tracking and identification
 * figures measure the tracker and the matcher, not YOLOX-nano's recall on tiny animals. It is not
 * checked at phone scale: the holstein phone clip's stranger, a mostly black face crop, scored
 * 0.09–0.21 at 189 px with one look a frame and never started a track (count error 1); the survey's
 * four looks (workers/src/survey/views.ts) track it (`survey-holstein-dev-2026-11-27-detect.json`).
 * Requiring every scale was tried (`survey-holstein-dev-2026-11-25-cast-all-scales.json`): the new
 * cast's stranger was still not tracked, and its drone clip gained 3 ID switches and a count error.
 */
let probeField: Buffer | undefined;
export async function detectableAt(detector: Detects, png: Buffer, aspect: number, h: number): Promise<boolean> {
  probeField ??= await field(960, 540, 99);
  const w = Math.round(h * aspect);
  const small = await sharp(png).resize(w, h, { fit: 'fill' }).png().toBuffer();
  const frame = await sharp(probeField)
    .composite([{ input: small, left: 400, top: 220 }])
    .jpeg()
    .toBuffer();
  const dets = mergeClasses(await detector.detect(new Uint8Array(frame), { classes: COCO_ANIMAL_IDS, minScore: 0.05 }));
  return dets.some((d) => d.score >= 0.45 && iou(d.box, { x: 400, y: 220, w, h }) >= 0.5);
}

/**
 * The cast: up to `enrolled` individuals, in the sorted order of the gallery's ids, each from its
 * first query photo whose animal the detector finds, and up to
 * `strangers` animals of query photos of no gallery individual. Fewer come back when the dataset
 * has fewer such photos; the caller decides whether that is enough.
 */
export async function castFromDataset(
  detector: Detects,
  root: string,
  proto: CastProtocol,
  want: { enrolled: number; strangers: number },
): Promise<{ enrolled: CastMember[]; strangers: CastMember[] }> {
  const galleryIds = [...new Set(proto.gallery.map((g) => g.id))].sort();
  const enrolled: CastMember[] = [];
  for (const id of galleryIds) {
    if (enrolled.length >= want.enrolled) break;
    for (const q of proto.queries.filter((x) => x.expect === id)) {
      const s = await spriteOf(detector, root, q.path);
      if (s) {
        enrolled.push({ id, ...s });
        break;
      }
    }
  }
  const strangers: CastMember[] = [];
  for (const q of proto.queries.filter((x) => x.expect === null)) {
    if (strangers.length >= want.strangers) break;
    const s = await spriteOf(detector, root, q.path);
    if (s) strangers.push({ id: `stranger:${path.basename(path.dirname(q.path))}`, ...s });
  }
  return { enrolled, strangers };
}
