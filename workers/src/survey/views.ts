/**
 * Several looks at one video frame for YOLOX-nano's 416×416 input, fused into one list:
 *
 * - **the whole frame**, letterboxed as before;
 * - **the frame mirrored**: YOLOX's score for one animal swings with where it falls on the
 *   network's grid (the holstein phone clip's stranger, a cow-face crop, scored from barely seen
 *   to certain as it moved about one scene), and the model was trained on mirrored images: a
 *   second look;
 * - **square tiles along the long side** when the frame is 1.5 or more times wider than high
 *   (16:9 phone and drone video): letterboxed whole, a 960×540 frame fills 416×234 of the input
 *   (44% of it grey) and animals shrink 2.3 times; two 540×540 tiles are seen at 0.77. A tile's
 *   box cut by a seam inside the frame is dropped: the other tile or the whole frame holds that
 *   animal entire (SAHI's slices plus the full frame, Akyon et al. 2022).
 *
 * On bench:survey's holstein phone clip the cow walking in from the right was missed whole in its
 * first frames and found in a tile, and the stranger, barely seen whole, was tracked once the mirror
 * was looked at too; four looks cost about twice the time of one
 * (benchmarks/results/survey-holstein-dev-2026-11-27-detect.json; benchmarks/results/README.md,
 * "Surveys: ground truth and four looks a frame").
 *
 * ```ts
 * const dets = onePerPlace(mergeClasses(await detectViews(detector, frame, { classes, minScore: 0.05 })));
 * ```
 * The looks' boxes are merged per class by the detector's own NMS overlap (0.45), keeping the best
 * score: a look that finds an animal is not outvoted by one that misses it.
 */
import sharp from 'sharp';
import type { Detection, DetectOptions } from '../vision/detector.js';
import type { DecodedImage } from '../vision/intake.js';
import { insideShare, nms, type Box } from '../vision/boxes.js';

export interface ViewOptions {
  /** Also look at the frame mirrored left to right. */
  flip: boolean;
  /** Also look at square tiles along the long side of wide (or tall) frames. */
  tiles: boolean;
}

export const DEFAULT_VIEWS: ViewOptions = { flip: true, tiles: true };

/** The looks the operator's SURVEY_DETECT_LOOKS asks for: `whole` is the one-look pass, half the work. */
export function looksFor(setting: 'all' | 'whole'): ViewOptions {
  return setting === 'whole' ? { flip: false, tiles: false } : DEFAULT_VIEWS;
}

/** Tiles only when the letterbox would leave a third or more of YOLOX's square input grey. */
const TILE_ASPECT = 1.5;
/** The detector's class-wise NMS overlap (vision/detector.ts): the same animal seen twice. */
const SAME_IOU = 0.45;
/**
 * How near a seam (a share of the tile's side) a tile's box counts as cut. YOLOX ends the box of a
 * cut animal a little short of the edge: on nyala-dev photos cut to 16:9, almost every tile box
 * within 4% of a seam lay inside a larger whole-frame box (the animal entire), and only about half
 * of the boxes farther from it.
 */
const SEAM = 0.04;

/** A square window of the frame (frame pixels). */
export interface Tile {
  x: number;
  y: number;
  side: number;
}

/** The tiles of a frame: squares of its short side, spread evenly from one end of the long side to the other. */
export function tilesOf(width: number, height: number): Tile[] {
  const side = Math.min(width, height);
  const long = Math.max(width, height);
  if (long < TILE_ASPECT * side) return [];
  const n = Math.ceil(long / side);
  return Array.from({ length: n }, (_, i) => {
    const at = Math.round((i * (long - side)) / (n - 1));
    return width >= height ? { x: at, y: 0, side } : { x: 0, y: at, side };
  });
}

/** Share of a tile box that must lie inside a whole-frame box for it to be a piece of that animal. */
const INSIDE = 0.8;
/** Whole-frame boxes this sure or more can show a tile box to be a piece (the survey tracker's lowest score). */
const WHOLE_MIN = 0.1;

/** Whether a box (frame pixels) reaches `m` pixels or more past a side of the tile that lies inside the frame. */
function crosses(b: Box, t: Tile, width: number, height: number, m: number): boolean {
  return (
    (t.x > 0 && b.x < t.x - m) ||
    (t.y > 0 && b.y < t.y - m) ||
    (t.x + t.side < width && b.x + b.w > t.x + t.side + m) ||
    (t.y + t.side < height && b.y + b.h > t.y + t.side + m)
  );
}

/**
 * A tile's boxes (frame pixels) where the tile saw the animal entire. Dropped: a box touching a seam
 * inside the frame, and a box lying inside a whole-frame box that crosses the seam (YOLOX boxes the
 * piece of a large animal a tile holds, such as its hindquarters, as an animal of its own).
 */
export function entireInTile(dets: readonly Detection[], t: Tile, whole: readonly Detection[], width: number, height: number): Detection[] {
  const m = SEAM * t.side;
  const local = (b: Box): Box => ({ x: b.x - t.x, y: b.y - t.y, w: b.w, h: b.h });
  const touches = (b: Box) =>
    (t.x > 0 && b.x <= m) ||
    (t.y > 0 && b.y <= m) ||
    (t.x + t.side < width && b.x + b.w >= t.side - m) ||
    (t.y + t.side < height && b.y + b.h >= t.side - m);
  return dets.filter(
    (d) =>
      !touches(local(d.box)) &&
      !whole.some((w) => w.score >= WHOLE_MIN && crosses(w.box, t, width, height, m) && insideShare(d.box, w.box) >= INSIDE),
  );
}

/** Per class, one box per animal: the best-scored of the looks' overlapping boxes. */
export function fuseViews(views: readonly Detection[][]): Detection[] {
  return nms(
    views.flat().sort((a, b) => b.score - a.score),
    SAME_IOU,
  );
}

/**
 * One box per place, whatever its class, once the classes are summed (`mergeClasses`): the looks
 * box one animal with different extents and classes (tight in a tile, with ground around it in the
 * whole frame), and each such box could start a track: on bench:survey's nyala drone clip one animal
 * got two (count 6 of 5). The detector's own NMS overlap, now across classes; best first.
 */
export function onePerPlace(dets: readonly Detection[]): Detection[] {
  return nms(
    [...dets].sort((a, b) => b.score - a.score),
    SAME_IOU,
    false,
  );
}

// The mirror through sharp (native, off the JavaScript thread): a pixel loop in JavaScript took a
// noticeable share of a survey's main thread on 2 cores, and the main thread sets a GPU survey's pace
// (benchmarks/results/README.md, "Survey speed on one GPU").
async function mirror(img: DecodedImage): Promise<DecodedImage> {
  const rgb = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .flop()
    .raw()
    .toBuffer();
  return { rgb, width: img.width, height: img.height };
}

/** A tile is whole rows of bytes: one native copy a row, no image pipeline needed. */
function cut(img: DecodedImage, t: Tile): DecodedImage {
  const rgb = Buffer.allocUnsafe(t.side * t.side * 3);
  for (let y = 0; y < t.side; y++)
    img.rgb.copy(rgb, y * t.side * 3, ((t.y + y) * img.width + t.x) * 3, ((t.y + y) * img.width + t.x + t.side) * 3);
  return { rgb, width: t.side, height: t.side };
}

/**
 * Detects on every view of the frame (started together, so a pool of threads runs them at once)
 * and answers the fused detections in frame pixels, best first.
 */
export async function detectViews(
  detector: { detect(img: DecodedImage, opts: DetectOptions): Promise<Detection[]> },
  img: DecodedImage,
  opts: DetectOptions,
  views: ViewOptions = DEFAULT_VIEWS,
): Promise<Detection[]> {
  const { width, height } = img;
  const looks: Promise<Detection[]>[] = [detector.detect(img, opts)];
  if (views.flip) {
    looks.push(
      mirror(img)
        .then((m) => detector.detect(m, opts))
        .then((ds) => ds.map((d) => ({ ...d, box: { ...d.box, x: width - d.box.x - d.box.w } }))),
    );
  }
  const tiles = views.tiles ? tilesOf(width, height) : [];
  for (const t of tiles) {
    looks.push(
      detector.detect(cut(img, t), opts).then((ds) => ds.map((d) => ({ ...d, box: { ...d.box, x: d.box.x + t.x, y: d.box.y + t.y } }))),
    );
  }
  // Every look settles before any failure is raised: none is left to fail unhandled.
  const settled = await Promise.allSettled(looks);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  const found = settled.map((s) => (s as PromiseFulfilledResult<Detection[]>).value);
  const whole = found.slice(0, found.length - tiles.length);
  const inTiles = found.slice(whole.length).map((ds, i) => entireInTile(ds, tiles[i]!, whole.flat(), width, height));
  return fuseViews([...whole, ...inTiles]);
}
