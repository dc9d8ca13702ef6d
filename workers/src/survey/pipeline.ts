/**
 * One survey pass over a video: frames streamed from ffmpeg, YOLOX-nano on each (whole, mirrored
 * and in tiles: survey/views.ts), camera motion between consecutive frames, the tracker, and for
 * every track a handful of its best crops
 * (large, confident, away from the frame edge, spread in time) kept as JPEG for identification.
 * Frames are detected at `maxSide` (960), but the crops are cut at the video's own resolution (up
 * to `cropSide`, 1920): during the pass only each chosen crop's frame number and box are kept,
 * and after it one more ffmpeg read hands out just those frames at full size (frame-stream.ts
 * `pickFrames`). A video no larger than the detection frames is cut during the pass, as before.
 * Nothing but the current frame and those crops is held in memory.
 *
 * ```ts
 * const out = await surveyVideo(file, { kind: 'animal', fps: 10 }, { detector, onProgress });
 * out.tracks;  // [{ id, label, first_s, last_s, crops: [{ jpeg, box, at }], boxes }]
 * ```
 */
import sharp from 'sharp';
import type { Detection, DetectOptions } from '../vision/detector.js';
import type { DecodedImage } from '../vision/intake.js';
import { COCO_ANIMAL_IDS } from '../vision/animal-detector.js';
import { estimateMotion, greyFrame, type GreyFrame } from './motion.js';
import type { Mat } from './kalman.js';
import { outputSize, pickFrames, probe, streamFrames, type StreamFrame, type VideoInfo } from './frame-stream.js';
import { iou, Tracker, type Box, type Track, type TrackerDetection, type TrackerOptions } from './tracker.js';
import { DEFAULT_VIEWS, detectViews, onePerPlace, type ViewOptions } from './views.js';

/**
 * Crops are cut from frames at most this long (1080p). A 1080p video detected at 960 px gives
 * crops of twice the side; a 4K one is read at 1920 rather than 3840, since the engine reads a
 * photo at 1280 px at most (vision/intake.ts) and a 4K frame is 25 MB of RGB and four times the
 * decoding: only animals under a third of a 4K frame's height would gain from it.
 */
export const CROP_SIDE = 1920;

/** COCO apple, orange and banana: the fruit YOLOX-nano knows. */
export const FRUIT_CLASS_IDS: readonly number[] = [46, 47, 49];

export interface SurveyOptions {
  kind: 'animal' | 'fruit';
  fps: number;
  /** Longest side frames are decoded at. */
  maxSide?: number;
  maxSeconds?: number;
  /** Camera-motion compensation (default on: drones and walking phones both move). */
  cmc?: boolean;
  /** Crops kept per track for identification. */
  cropsPerTrack?: number;
  /**
   * Longest side of the frames the crops are cut from (default `CROP_SIDE`); never more than the
   * video's own. At `maxSide` or below the crops come from the detection frames, with no second read.
   */
  cropSide?: number;
  tracker?: Partial<TrackerOptions>;
  /** Which looks at each frame the detector takes (survey/views.ts; default: whole, mirrored, and tiles of wide frames). */
  views?: Partial<ViewOptions>;
}

export interface SurveyCrop {
  jpeg: Buffer;
  /** The detection inside the crop (the crop has a margin around it). */
  box: Box;
  at: number;
  quality: number;
}

export interface SurveyTrack {
  id: number;
  /** The detector's most frequent label over the track. */
  label: string;
  first_s: number;
  last_s: number;
  /** Observations: seconds and box (frame pixels). */
  boxes: { at: number; box: Box; score: number }[];
  crops: SurveyCrop[];
  relinks: number;
}

export interface SurveyPass {
  tracks: SurveyTrack[];
  frames: number;
  width: number;
  height: number;
  seconds: number;
  /** Wall time of the pass, for frames per second. */
  ms: number;
  /** Per-frame tracker output (frame index → [track id, box]) when `keepFrames` is asked, for benchmarks and overlays. */
  perFrame?: { index: number; tracks: { id: number; box: Box }[] }[];
}

/** A detector (vision/detector.ts), or the engine pool's (`EnginePool.detect`). */
export interface FrameDetector {
  detect(img: DecodedImage, opts: DetectOptions): Promise<Detection[]>;
  /**
   * Every look at a frame, fused (survey/views.ts `detectViews`), in one call: the engine pool runs
   * them on one of its threads, so the frame crosses once and the mirror and tiles are cut there.
   */
  detectLooks?(img: DecodedImage, opts: DetectOptions, views: ViewOptions): Promise<Detection[]>;
}

export interface SurveyDeps {
  detector: FrameDetector;
  /**
   * Camera motion between two grey frames (the engine pool's `motion`); default: on this thread.
   * On a GPU machine this thread sets the pace: the estimate took a third of it.
   */
  motion?: (prev: GreyFrame, cur: GreyFrame, boxes: readonly Box[]) => Promise<Mat>;
  /**
   * Frames whose detection may run ahead of the tracker (default 1: none ahead). With the engine
   * pool, its thread count: each thread detects a frame while the tracker takes them in order.
   */
  ahead?: number;
  /**
   * Told the frames read and tracks confirmed so far, and the frames the video should give
   * (`frames_total`, from its declared length; null when it declares none): at the first frame,
   * then at most every `progressMs`, and once more at the end of the pass.
   */
  onProgress?: (p: { frames_read: number; tracks: number; frames_total: number | null }) => Promise<void> | void;
  /** Least time between two progress reports during the pass, in ms (default 500). */
  progressMs?: number;
  /** Report every this many frames instead of by time (tests). */
  progressEvery?: number;
  keepFrames?: boolean;
}

/** Survey tuning for YOLOX-nano's scores: it is less sure of far animals than ByteTrack's detector of people. */
export const SURVEY_TRACKER: Partial<TrackerOptions> = { highScore: 0.3, lowScore: 0.1, newTrackScore: 0.35, buffer: 30, minHits: 3 };

/** Fruit are small round things to YOLOX-nano: its apple scores run lower than its cow scores. */
export const FRUIT_TRACKER: Partial<TrackerOptions> = { highScore: 0.2, lowScore: 0.08, newTrackScore: 0.25 };

/**
 * Class-agnostic detections: YOLOX scores a box objectness × class probability and keeps one box
 * per class (class-wise NMS), so one far animal comes out as a `horse` 0.22 and a `cow` 0.21 on
 * the same spot. Summing the classes at one place approximates objectness × P(any surveyed
 * class), the score a tracker of "animals" needs; the box and label are the best class's.
 */
export function mergeClasses(dets: readonly Detection[], sameIou = 0.6): Detection[] {
  const out: Detection[] = [];
  for (const d of [...dets].sort((a, b) => b.score - a.score)) {
    const host = out.find((k) => iou(k.box, d.box) >= sameIou);
    if (host) host.score = Math.min(1, host.score + d.score);
    else out.push({ ...d });
  }
  return out.sort((a, b) => b.score - a.score);
}

/**
 * Cheap appearance for re-linking: Hellinger-normalised 4×4×4 RGB histograms of the upper and
 * lower half of the box's centre (back and legs differ more between animals than their mean colour).
 */
export function colourFeature(f: Pick<StreamFrame, 'rgb' | 'width' | 'height'>, b: Box): Float32Array {
  const top = halfHistogram(f, { x: b.x, y: b.y, w: b.w, h: b.h / 2 });
  const bottom = halfHistogram(f, { x: b.x, y: b.y + b.h / 2, w: b.w, h: b.h / 2 });
  const out = new Float32Array(128);
  out.set(top, 0);
  out.set(bottom, 64);
  for (let i = 0; i < 128; i++) out[i]! /= Math.SQRT2;
  return out;
}

function halfHistogram(f: Pick<StreamFrame, 'rgb' | 'width' | 'height'>, b: Box): Float32Array {
  const h = new Float32Array(64);
  const x0 = Math.max(0, Math.floor(b.x + b.w * 0.2));
  const x1 = Math.min(f.width, Math.ceil(b.x + b.w * 0.8));
  const y0 = Math.max(0, Math.floor(b.y + b.h * 0.2));
  const y1 = Math.min(f.height, Math.ceil(b.y + b.h * 0.8));
  const step = Math.max(1, Math.floor(Math.sqrt(((x1 - x0) * (y1 - y0)) / 4096)));
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      const o = (y * f.width + x) * 3;
      h[((f.rgb[o]! >> 6) << 4) | ((f.rgb[o + 1]! >> 6) << 2) | (f.rgb[o + 2]! >> 6)]! += 1;
    }
  }
  let n = 0;
  for (let i = 0; i < 64; i++) n += h[i]!;
  for (let i = 0; i < 64; i++) h[i] = Math.sqrt(h[i]! / (n || 1));
  let l2 = 0;
  for (let i = 0; i < 64; i++) l2 += h[i]! ** 2;
  l2 = Math.sqrt(l2) || 1;
  for (let i = 0; i < 64; i++) h[i]! /= l2;
  return h;
}

/** How good a crop is to identify from: confident, large, not cut by the frame edge. */
function cropQuality(d: Detection, width: number, height: number): number {
  const edge = d.box.x < 2 || d.box.y < 2 || d.box.x + d.box.w > width - 2 || d.box.y + d.box.h > height - 2;
  return d.score * Math.sqrt(d.box.w * d.box.h) * (edge ? 0.3 : 1);
}

/** Crop with a 15% margin, as JPEG, and the box within it. */
async function crop(f: Pick<StreamFrame, 'rgb' | 'width' | 'height'>, b: Box): Promise<{ jpeg: Buffer; box: Box }> {
  const m = 0.15;
  const left = Math.max(0, Math.floor(b.x - b.w * m));
  const top = Math.max(0, Math.floor(b.y - b.h * m));
  const right = Math.min(f.width, Math.ceil(b.x + b.w * (1 + m)));
  const bottom = Math.min(f.height, Math.ceil(b.y + b.h * (1 + m)));
  const jpeg = await sharp(f.rgb, { raw: { width: f.width, height: f.height, channels: 3 } })
    .extract({ left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) })
    .jpeg({ quality: 90 })
    .toBuffer();
  return { jpeg, box: { x: b.x - left, y: b.y - top, w: b.w, h: b.h } };
}

/**
 * The frames in order, each with its detection already started, and its camera motion (from the
 * previous frame, masked by this frame's boxes) chained on it, up to `deps.ahead` frames ahead
 * (so a pool of N threads detects N frames at once). Only those frames are held in memory.
 */
async function* detectAhead(
  frames: AsyncIterable<StreamFrame>,
  deps: SurveyDeps,
  classes: readonly number[],
  views: ViewOptions,
  cmc: boolean,
) {
  const ahead = Math.max(1, deps.ahead ?? 1);
  const queue: { f: StreamFrame; found: Promise<Detection[]>; motion: Promise<Mat | null> }[] = [];
  const it = frames[Symbol.asyncIterator]();
  const estimate = deps.motion ?? estimateMotion;
  let prevGrey: Promise<GreyFrame> | null = null;
  let done = false;
  try {
    for (;;) {
      while (!done && queue.length < ahead) {
        const n = await it.next();
        if (n.done) {
          done = true;
          break;
        }
        const img = { rgb: n.value.rgb, width: n.value.width, height: n.value.height };
        const opts = { classes, minScore: 0.05 };
        const detected = deps.detector.detectLooks
          ? deps.detector.detectLooks(img, opts, views)
          : detectViews(deps.detector, img, opts, views);
        // Class-agnostic within the kind: YOLOX-nano flickers between cow and horse on one animal.
        const found = detected.then((d) => onePerPlace(mergeClasses(d)));
        const grey = cmc ? greyFrame(img.rgb, img.width, img.height) : null;
        const from = prevGrey;
        prevGrey = grey;
        const motion =
          grey && from
            ? Promise.all([from, grey, found]).then(([a, b, ds]) =>
                estimate(
                  a,
                  b,
                  ds.map((d) => d.box),
                ),
              )
            : Promise.resolve(null);
        // Awaited in turn below; until then a failure must not count as unhandled.
        for (const p of [found, motion, grey]) p?.catch(() => undefined);
        queue.push({ f: n.value, found, motion });
      }
      const next = queue.shift();
      if (!next) return;
      yield next;
    }
  } finally {
    // Stopped early (an error, or the caller broke off): let ffmpeg's stream close.
    if (!done) await it.return?.();
  }
}

/** A crop chosen during the pass: its frame and box (detection-frame pixels), cut now or after the pass. */
interface Chosen {
  index: number;
  at: number;
  box: Box;
  quality: number;
  cut?: { jpeg: Buffer; box: Box };
}

export async function surveyVideo(file: string, o: SurveyOptions, deps: SurveyDeps): Promise<SurveyPass> {
  const started = Date.now();
  const classes = o.kind === 'animal' ? COCO_ANIMAL_IDS : FRUIT_CLASS_IDS;
  const tracker = new Tracker({ ...SURVEY_TRACKER, ...(o.kind === 'fruit' ? FRUIT_TRACKER : {}), ...o.tracker });
  const perK = o.cropsPerTrack ?? 4;
  const maxSide = o.maxSide ?? 960;
  // Crops and label votes per track, filled as the track is matched.
  const crops = new Map<Track, Chosen[]>();
  const labels = new Map<Track, Map<string, number>>();
  const perFrame: NonNullable<SurveyPass['perFrame']> = [];
  let frames = 0;
  let size = { width: 0, height: 0 };
  const minGap = Math.max(1, Math.round(o.fps / 2));
  const info: VideoInfo = await probe(file);
  // The crops' frames: larger than the detection frames only when the video is.
  const cropSide = Math.max(maxSide, Math.min(o.cropSide ?? CROP_SIDE, Math.max(info.width, info.height)));
  const later = outputSize(info.width, info.height, cropSide).width > outputSize(info.width, info.height, maxSide).width;
  const total = info.duration > 0 ? Math.max(1, Math.round(Math.min(info.duration, o.maxSeconds ?? 120) * o.fps)) : null;
  let reported = 0;
  for await (const { f, found: foundP, motion } of detectAhead(
    streamFrames(file, { fps: o.fps, maxSide, maxSeconds: o.maxSeconds ?? 120, info }),
    deps,
    classes,
    { ...DEFAULT_VIEWS, ...o.views },
    o.cmc !== false,
  )) {
    frames++;
    size = { width: f.width, height: f.height };
    const found = await foundP;
    const H = await motion;
    const dets: TrackerDetection[] = found.map((d) => ({ box: d.box, score: d.score, feature: colourFeature(f, d.box) }));
    const active = tracker.update(dets, { ...(H ? { motion: H } : {}), frame: { width: f.width, height: f.height } });
    for (const t of active) {
      const p = t.points.at(-1)!;
      const d = found[p.detection]!;
      const votes = labels.get(t) ?? new Map<string, number>();
      votes.set(d.label, (votes.get(d.label) ?? 0) + d.score);
      labels.set(t, votes);
      await keepCrop(crops, t, f, d, perK, minGap, o.fps, !later);
    }
    if (deps.keepFrames) perFrame.push({ index: f.index, tracks: active.map((t) => ({ id: t.id, box: { ...t.points.at(-1)!.box } })) });
    // By time, not by frames: four looks a frame on two cores is about a second a frame, and a page
    // that waits ten frames for its first number reads as stuck (issue 39).
    const due = deps.progressEvery ? frames % deps.progressEvery === 0 : Date.now() - reported >= (deps.progressMs ?? 500);
    if (deps.onProgress && (frames === 1 || due)) {
      reported = Date.now();
      await deps.onProgress({ frames_read: frames, tracks: tracker.finished().length, frames_total: total });
    }
  }
  const finished = tracker.finished();
  await cutAtSource(
    file,
    finished.flatMap((t) => crops.get(t) ?? []),
    { fps: o.fps, cropSide, info, decoded: size },
  );
  const tracks = finished.map((t) => ({
    id: t.id,
    label: [...(labels.get(t) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '',
    first_s: (t.points[0]!.frame - 1) / o.fps,
    last_s: (t.points.at(-1)!.frame - 1) / o.fps,
    boxes: t.points.map((p) => ({ at: (p.frame - 1) / o.fps, box: p.box, score: p.score })),
    crops: (crops.get(t) ?? []).sort((a, b) => a.at - b.at).map((c) => ({ ...c.cut!, at: c.at, quality: c.quality })),
    relinks: t.relinks,
  }));
  await deps.onProgress?.({ frames_read: frames, tracks: tracks.length, frames_total: total });
  return { tracks, frames, ...size, seconds: frames / o.fps, ms: Date.now() - started, ...(deps.keepFrames ? { perFrame } : {}) };
}

/**
 * Cuts the crops not cut during the pass from their frames read again at `cropSide`, the boxes
 * scaled from the detection frames (`decoded`) to those. One frame at a time: each frame's crops
 * are cut as it arrives and the frame let go.
 */
async function cutAtSource(
  file: string,
  chosen: Chosen[],
  o: { fps: number; cropSide: number; info: VideoInfo; decoded: { width: number; height: number } },
) {
  const todo = chosen.filter((c) => !c.cut);
  if (todo.length === 0) return;
  const byFrame = new Map<number, Chosen[]>();
  for (const c of todo) byFrame.set(c.index, [...(byFrame.get(c.index) ?? []), c]);
  for await (const f of pickFrames(file, { fps: o.fps, maxSide: o.cropSide, indices: [...byFrame.keys()], info: o.info })) {
    const sx = f.width / o.decoded.width;
    const sy = f.height / o.decoded.height;
    for (const c of byFrame.get(f.index) ?? [])
      c.cut = await crop(f, { x: c.box.x * sx, y: c.box.y * sy, w: c.box.w * sx, h: c.box.h * sy });
  }
}

/**
 * Keep the track's `k` best crops, no two within `minGap` frames of each other (varied views).
 * `now`: cut the JPEG from this frame at once; otherwise only the frame and box are kept.
 */
async function keepCrop(
  all: Map<Track, Chosen[]>,
  t: Track,
  f: StreamFrame,
  d: Detection,
  k: number,
  minGap: number,
  fps: number,
  now: boolean,
) {
  const list = all.get(t) ?? [];
  all.set(t, list);
  const q = cropQuality(d, f.width, f.height);
  const near = list.findIndex((c) => Math.abs(c.at - f.at) * fps < minGap);
  if (near >= 0) {
    if (list[near]!.quality >= q) return;
    list.splice(near, 1);
  } else if (list.length >= k) {
    const worst = list.reduce((w, c, i) => (c.quality < list[w]!.quality ? i : w), 0);
    if (list[worst]!.quality >= q) return;
    list.splice(worst, 1);
  }
  list.push({ index: f.index, at: f.at, box: { ...d.box }, quality: q, ...(now ? { cut: await crop(f, d.box) } : {}) });
}
