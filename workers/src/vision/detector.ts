/**
 * Animal (and other COCO object) detector: YOLOX-nano (Megvii, Apache-2.0),
 * loaded through its entry in the model registry (`models/manifest.json`,
 * name `yolox-nano-coco`) and run with onnxruntime-node (CUDA when present).
 *
 * Stable API (other areas build on it; keep it):
 * ```ts
 * const det = await loadDetector();                       // once per process
 * const boxes = await det.detect(bytesOrDecoded, { classes: ANIMAL_CLASS_IDS, minScore: 0.3 });
 * // → [{ box: { x, y, w, h }, score, cocoClass, label }], best first, in pixels of the
 * //   EXIF-upright decoded image (long side at most 1280, see intake.ts)
 * const subject = pickSubject(boxes, { prefer: 'largest' });   // or { index: 2 }
 * const crop = await cropToBox(decoded, subject.box, { margin: 0.1 });
 * ```
 * `detect` accepts encoded bytes (decoded here, EXIF applied) or a
 * `DecodedImage`. Errors: `UndecodableImageError` for bad bytes,
 * `ModelIntegrityError` when the model file is not the one in the manifest.
 */
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { decodeImage, type DecodedImage } from './intake.js';
import { openSession, registry, type LocatedModel, type ModelRef, type Provider } from './registry.js';
import { iou, nms, type Box } from './boxes.js';

export { iou, type Box };

export interface Detection {
  box: Box;
  /** objectness × class probability, 0..1. */
  score: number;
  /** COCO class id, 0-based (15 cat … 23 giraffe). */
  cocoClass: number;
  /** COCO class name, e.g. `cow`. */
  label: string;
}

export interface DetectOptions {
  /** COCO class ids to keep (default: all). */
  classes?: readonly number[];
  /** Lowest score kept (default 0.25). */
  minScore?: number;
}

/** The 80 COCO class names in YOLOX's order. */
export const COCO_LABELS = [
  'person',
  'bicycle',
  'car',
  'motorcycle',
  'airplane',
  'bus',
  'train',
  'truck',
  'boat',
  'traffic light',
  'fire hydrant',
  'stop sign',
  'parking meter',
  'bench',
  'bird',
  'cat',
  'dog',
  'horse',
  'sheep',
  'cow',
  'elephant',
  'bear',
  'zebra',
  'giraffe',
  'backpack',
  'umbrella',
  'handbag',
  'tie',
  'suitcase',
  'frisbee',
  'skis',
  'snowboard',
  'sports ball',
  'kite',
  'baseball bat',
  'baseball glove',
  'skateboard',
  'surfboard',
  'tennis racket',
  'bottle',
  'wine glass',
  'cup',
  'fork',
  'knife',
  'spoon',
  'bowl',
  'banana',
  'apple',
  'sandwich',
  'orange',
  'broccoli',
  'carrot',
  'hot dog',
  'pizza',
  'donut',
  'cake',
  'chair',
  'couch',
  'potted plant',
  'bed',
  'dining table',
  'toilet',
  'tv',
  'laptop',
  'mouse',
  'remote',
  'keyboard',
  'cell phone',
  'microwave',
  'oven',
  'toaster',
  'sink',
  'refrigerator',
  'book',
  'clock',
  'vase',
  'scissors',
  'teddy bear',
  'hair drier',
  'toothbrush',
] as const;

/** Four-legged animals (COCO 15 cat … 23 giraffe); birds are left out on purpose. */
export const ANIMAL_CLASS_IDS: readonly number[] = [15, 16, 17, 18, 19, 20, 21, 22, 23];

const STRIDES = [8, 16, 32];
const PAD = 114;
const NMS_IOU = 0.45;

/** A loaded detector. Create once per process with `loadDetector()`. */
export class Detector {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly entry: LocatedModel,
    readonly provider: Provider,
  ) {}

  /** Loads a registry entry (default: the detector for animals). */
  static async load(entry: LocatedModel | undefined = registry().pick('detector', 'animal')): Promise<Detector> {
    if (!entry) throw new Error('no detector model in the registry');
    const { session, provider } = await openSession(entry);
    return new Detector(session, entry, provider);
  }

  get model(): ModelRef {
    return { name: this.entry.name, version: this.entry.version };
  }

  /** Square input side (416 for YOLOX-nano). */
  get side(): number {
    return Number(this.entry.inputs[0]!.shape[2]);
  }

  /** Detects objects, best first. */
  async detect(image: Uint8Array | DecodedImage, opts: DetectOptions = {}): Promise<Detection[]> {
    const img = image instanceof Uint8Array ? await decodeImage(image) : image;
    const { tensor, scale } = await letterbox(img, this.side);
    const out = await this.session.run({ [this.entry.inputs[0]!.name]: tensor });
    const raw = out[this.entry.outputs[0]!.name]!.data as Float32Array;
    return decodeYolox(raw, { side: this.side, scale, width: img.width, height: img.height }, opts);
  }
}

/** Resizes the long side to `side` keeping the aspect, pads right/bottom with grey 114, BGR 0..255 NCHW. */
async function letterbox(img: DecodedImage, side: number): Promise<{ tensor: ort.Tensor; scale: number }> {
  const scale = Math.min(side / img.width, side / img.height);
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const px = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(w, h, { fit: 'fill' })
    .raw()
    .toBuffer();
  const plane = side * side;
  const data = new Float32Array(3 * plane).fill(PAD);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * 3;
      const d = y * side + x;
      data[d] = px[s + 2]!; // B
      data[plane + d] = px[s + 1]!; // G
      data[2 * plane + d] = px[s]!; // R
    }
  }
  return { tensor: new ort.Tensor('float32', data, [1, 3, side, side]), scale };
}

/**
 * Decodes YOLOX's raw grid output `[1, cells, 5 + classes]` (strides 8/16/32;
 * objectness and classes already through a sigmoid) into boxes in the
 * decoded image's pixels, then class-wise NMS. Exported for tests.
 */
export function decodeYolox(
  raw: Float32Array,
  geo: { side: number; scale: number; width: number; height: number },
  opts: DetectOptions = {},
): Detection[] {
  const minScore = opts.minScore ?? 0.25;
  const keep = opts.classes ? new Set(opts.classes) : undefined;
  const nClasses = COCO_LABELS.length;
  const row = 5 + nClasses;
  const found: Detection[] = [];
  let cell = 0;
  for (const stride of STRIDES) {
    const n = geo.side / stride;
    for (let gy = 0; gy < n; gy++) {
      for (let gx = 0; gx < n; gx++, cell++) {
        const o = cell * row;
        const obj = raw[o + 4]!;
        if (obj < minScore) continue;
        let best = -1;
        let bestP = 0;
        for (let c = 0; c < nClasses; c++) {
          if (keep && !keep.has(c)) continue;
          const p = raw[o + 5 + c]!;
          if (p > bestP) {
            bestP = p;
            best = c;
          }
        }
        const score = obj * bestP;
        if (best < 0 || score < minScore) continue;
        const cx = (raw[o]! + gx) * stride;
        const cy = (raw[o + 1]! + gy) * stride;
        const bw = Math.exp(raw[o + 2]!) * stride;
        const bh = Math.exp(raw[o + 3]!) * stride;
        const box = clampBox(
          { x: (cx - bw / 2) / geo.scale, y: (cy - bh / 2) / geo.scale, w: bw / geo.scale, h: bh / geo.scale },
          geo.width,
          geo.height,
        );
        if (box.w >= 2 && box.h >= 2) found.push({ box, score, cocoClass: best, label: COCO_LABELS[best]! });
      }
    }
  }
  return nms(
    found.sort((a, b) => b.score - a.score),
    NMS_IOU,
  );
}

function clampBox(b: Box, width: number, height: number): Box {
  const x0 = Math.max(0, Math.min(width, b.x));
  const y0 = Math.max(0, Math.min(height, b.y));
  const x1 = Math.max(0, Math.min(width, b.x + b.w));
  const y1 = Math.max(0, Math.min(height, b.y + b.h));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

/** Which box is the subject: the largest (default), the best-scored, or one by index. */
export function pickSubject(
  dets: readonly Detection[],
  opts: { prefer?: 'largest' | 'score'; index?: number } = {},
): Detection | undefined {
  if (opts.index !== undefined) return dets[opts.index];
  if (opts.prefer === 'score') return dets[0];
  return [...dets].sort((a, b) => b.box.w * b.box.h - a.box.w * a.box.h)[0];
}

/** The box grown by `margin` of its size on every side, clamped to the image, in whole pixels. */
export function expandBox(b: Box, margin: number, width: number, height: number): Box {
  const x0 = Math.max(0, Math.floor(b.x - b.w * margin));
  const y0 = Math.max(0, Math.floor(b.y - b.h * margin));
  const x1 = Math.min(width, Math.ceil(b.x + b.w * (1 + margin)));
  const y1 = Math.min(height, Math.ceil(b.y + b.h * (1 + margin)));
  return { x: x0, y: y0, w: Math.max(1, x1 - x0), h: Math.max(1, y1 - y0) };
}

/** Crops a decoded image to a box grown by `margin` (default 0.1); returns the crop and the box used. */
export async function cropToBox(img: DecodedImage, box: Box, opts: { margin?: number } = {}): Promise<{ image: DecodedImage; box: Box }> {
  const b = expandBox(box, opts.margin ?? 0.1, img.width, img.height);
  const rgb = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .extract({ left: b.x, top: b.y, width: b.w, height: b.h })
    .raw()
    .toBuffer();
  return { image: { rgb, width: b.w, height: b.h }, box: b };
}

let shared: Promise<Detector> | undefined;
/** The process-wide detector (loaded lazily, once). */
export function loadDetector(): Promise<Detector> {
  shared ??= Detector.load();
  shared.catch(() => (shared = undefined));
  return shared;
}
