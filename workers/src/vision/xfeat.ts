/**
 * XFeat learned local features (Potje et al., CVPR 2024, Apache-2.0) through
 * onnxruntime-node: the backbone is the registry entry `xfeat-backbone`
 * (CUDA when present); its detect-and-compute step, which is not in the
 * graph, is written here after the reference implementation:
 * softmax over the 65 bins of each 8×8 cell, drop the "no keypoint" bin,
 * pixel-shuffle to full resolution, 5×5 non-maximum suppression above 0.05,
 * score = keypoint probability × bilinear reliability, top-K, bilinear
 * sampling of the 64-d dense descriptors at the keypoints, L2 normalisation.
 *
 * ```ts
 * const xf = await loadXFeat();
 * const [f] = await xf.extract([decoded], { side: 640, topK: 512 });  // batched when shapes agree
 * const bytes = packXFeat(f);                                          // stored as the descriptor's `local`
 * ```
 */
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import type { DecodedImage } from './intake.js';
import { runChunked } from './fixed-batch.js';
import { openSession, registry, type LocatedModel, type ModelRef, type Provider } from './registry.js';

/** XFeat keypoints of one image, in pixels of the image they were extracted from (after resizing). */
export interface XFeatFeatures {
  width: number;
  height: number;
  /** x0, y0, x1, y1, ... */
  xy: Float32Array;
  /** `count` × 64, L2-normalised rows. */
  desc: Float32Array;
  scores: Float32Array;
  count: number;
}

export interface XFeatOptions {
  /** Longest side the image is scaled to (rounded down to a multiple of 32). */
  side: number;
  /** Keypoints kept, best first. */
  topK: number;
  /** Most an image is enlarged to reach `side` (default: no limit). */
  maxUpscale?: number;
  /** Lowest keypoint probability (default 0.05, as the reference). */
  threshold?: number;
}

export const XFEAT_DIM = 64;

export class XFeat {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly entry: LocatedModel,
    readonly provider: Provider,
  ) {}

  static async load(entry: LocatedModel | undefined = registry().pick('local-features')): Promise<XFeat> {
    if (!entry) throw new Error('no local-features model in the registry');
    const { session, provider } = await openSession(entry);
    return new XFeat(session, entry, provider);
  }

  get model(): ModelRef {
    return { name: this.entry.name, version: this.entry.version };
  }

  /** Extracts features; images resized to the same shape run as one batch. */
  async extract(images: readonly DecodedImage[], opts: XFeatOptions): Promise<XFeatFeatures[]> {
    const prepared = await Promise.all(images.map((img) => resizeForXFeat(img, opts.side, opts.maxUpscale)));
    const out: XFeatFeatures[] = new Array(images.length);
    const groups = new Map<string, number[]>();
    prepared.forEach((p, i) => {
      const key = `${p.width}x${p.height}`;
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    for (const idx of groups.values()) {
      const { width: W, height: H } = prepared[idx[0]!]!;
      const plane = W * H;
      const input = new Float32Array(idx.length * 3 * plane);
      idx.forEach((i, b) => input.set(prepared[i]!.chw, b * 3 * plane));
      const res = await runChunked(this.session, this.provider, this.entry.inputs[0]!.name, input, [idx.length, 3, H, W]);
      const feats = res.feats!;
      const logits = res.keypoints!;
      const rel = res.heatmaps!;
      const cells = (H / 8) * (W / 8);
      idx.forEach((i, b) => {
        out[i] = detectAndCompute(
          feats.subarray(b * 64 * cells, (b + 1) * 64 * cells),
          logits.subarray(b * 65 * cells, (b + 1) * 65 * cells),
          rel.subarray(b * cells, (b + 1) * cells),
          W,
          H,
          opts,
        );
      });
    }
    return out;
  }
}

/**
 * RGB 0..1 NCHW at the long side `side` (or the image enlarged `maxUpscale` times, if that is
 * less), both sides multiples of 32 (at least 32).
 */
async function resizeForXFeat(
  img: DecodedImage,
  side: number,
  maxUpscale = Infinity,
): Promise<{ chw: Float32Array; width: number; height: number }> {
  const s = Math.min(side / Math.max(img.width, img.height), maxUpscale);
  const width = Math.max(32, Math.floor((img.width * s) / 32) * 32);
  const height = Math.max(32, Math.floor((img.height * s) / 32) * 32);
  const px = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer();
  const plane = width * height;
  const chw = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    chw[i] = px[i * 3]! / 255;
    chw[plane + i] = px[i * 3 + 1]! / 255;
    chw[2 * plane + i] = px[i * 3 + 2]! / 255;
  }
  return { chw, width, height };
}

/** Full-resolution keypoint probability map from the 65-bin logits (softmax, drop the dustbin, pixel-shuffle). */
function heatmap(logits: Float32Array, W: number, H: number): Float32Array {
  const wc = W / 8;
  const hc = H / 8;
  const cells = wc * hc;
  const out = new Float32Array(W * H);
  // Each exponential once per cell (kept in float64, as summed), then divided by the sum.
  const e = new Float64Array(65);
  for (let cy = 0; cy < hc; cy++) {
    for (let cx = 0; cx < wc; cx++) {
      const c = cy * wc + cx;
      let max = -Infinity;
      for (let k = 0; k < 65; k++) max = Math.max(max, logits[k * cells + c]!);
      let sum = 0;
      for (let k = 0; k < 65; k++) sum += e[k] = Math.exp(logits[k * cells + c]! - max);
      for (let k = 0; k < 64; k++) out[(cy * 8 + (k >> 3)) * W + cx * 8 + (k & 7)] = e[k]! / sum;
    }
  }
  return out;
}

/** Bilinear sample of a [C, hc, wc] map at full-resolution pixel (x, y), as grid_sample with align_corners=false. */
function sampleAt(
  map: Float32Array,
  C: number,
  wc: number,
  hc: number,
  W: number,
  H: number,
  x: number,
  y: number,
  out: Float32Array,
  at: number,
): void {
  const fx = Math.min(wc - 1, Math.max(0, (x / Math.max(1, W - 1)) * wc - 0.5));
  const fy = Math.min(hc - 1, Math.max(0, (y / Math.max(1, H - 1)) * hc - 0.5));
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const x1 = Math.min(wc - 1, x0 + 1);
  const y1 = Math.min(hc - 1, y0 + 1);
  const ax = fx - x0;
  const ay = fy - y0;
  const plane = wc * hc;
  for (let c = 0; c < C; c++) {
    const b = c * plane;
    out[at + c] =
      (1 - ay) * ((1 - ax) * map[b + y0 * wc + x0]! + ax * map[b + y0 * wc + x1]!) +
      ay * ((1 - ax) * map[b + y1 * wc + x0]! + ax * map[b + y1 * wc + x1]!);
  }
}

function detectAndCompute(
  feats: Float32Array,
  logits: Float32Array,
  rel: Float32Array,
  W: number,
  H: number,
  opts: XFeatOptions,
): XFeatFeatures {
  const heat = heatmap(logits, W, H);
  const thr = opts.threshold ?? 0.05;
  const wc = W / 8;
  const hc = H / 8;
  const cand: { x: number; y: number; s: number }[] = [];
  const one = new Float32Array(1);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const v = heat[y * W + x]!;
      if (v <= thr || !isLocalMax(heat, W, H, x, y, v)) continue;
      sampleAt(rel, 1, wc, hc, W, H, x, y, one, 0);
      cand.push({ x, y, s: v * one[0]! });
    }
  }
  cand.sort((a, b) => b.s - a.s);
  const keep = cand.slice(0, opts.topK);
  const n = keep.length;
  const xy = new Float32Array(n * 2);
  const scores = new Float32Array(n);
  const desc = new Float32Array(n * XFEAT_DIM);
  keep.forEach((k, i) => {
    xy[i * 2] = k.x;
    xy[i * 2 + 1] = k.y;
    scores[i] = k.s;
    sampleAt(feats, XFEAT_DIM, wc, hc, W, H, k.x, k.y, desc, i * XFEAT_DIM);
    let norm = 0;
    for (let c = 0; c < XFEAT_DIM; c++) norm += desc[i * XFEAT_DIM + c]! ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let c = 0; c < XFEAT_DIM; c++) desc[i * XFEAT_DIM + c]! /= norm;
  });
  return { width: W, height: H, xy, desc, scores, count: n };
}

/** 5×5 non-maximum suppression: the pixel holds the window's maximum (first one wins ties). */
function isLocalMax(heat: Float32Array, W: number, H: number, x: number, y: number, v: number): boolean {
  for (let dy = -2; dy <= 2; dy++) {
    const yy = y + dy;
    if (yy < 0 || yy >= H) continue;
    for (let dx = -2; dx <= 2; dx++) {
      const xx = x + dx;
      if (xx < 0 || xx >= W || (dx === 0 && dy === 0)) continue;
      const o = heat[yy * W + xx]!;
      if (o > v || (o === v && (dy < 0 || (dy === 0 && dx < 0)))) return false;
    }
  }
  return true;
}

/**
 * Stored layout (little-endian): 'XF' magic, u8 format 1, u8 dim (64), u32 count,
 * u16 width, u16 height, `count` × (u16 x·8, u16 y·8), then `count` × 64 int8
 * descriptors (value × 127, rounded; re-normalised when unpacked).
 */
const HEADER = 12;
export function packXFeat(f: XFeatFeatures): Uint8Array {
  const bytes = new Uint8Array(HEADER + f.count * 4 + f.count * XFEAT_DIM);
  const dv = new DataView(bytes.buffer);
  bytes.set([0x58, 0x46, 1, XFEAT_DIM]);
  dv.setUint32(4, f.count, true);
  dv.setUint16(8, f.width, true);
  dv.setUint16(10, f.height, true);
  for (let i = 0; i < f.count * 2; i++) dv.setUint16(HEADER + i * 2, Math.round(f.xy[i]! * 8), true);
  const q = new Int8Array(bytes.buffer, HEADER + f.count * 4, f.count * XFEAT_DIM);
  for (let i = 0; i < q.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round(f.desc[i]! * 127)));
  return bytes;
}

/** Whether a stored local-feature buffer is XFeat's (else AKAZE's, see keypoints.ts). */
export function isXFeat(bytes: Uint8Array): boolean {
  return bytes.byteLength >= HEADER && bytes[0] === 0x58 && bytes[1] === 0x46;
}

/** @throws Error on a malformed buffer. */
export function unpackXFeat(bytes: Uint8Array): XFeatFeatures {
  if (!isXFeat(bytes) || bytes[2] !== 1 || bytes[3] !== XFEAT_DIM) throw new Error('not a markless XFeat buffer');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = dv.getUint32(4, true);
  if (bytes.byteLength !== HEADER + count * (4 + XFEAT_DIM)) throw new Error('truncated XFeat buffer');
  const xy = new Float32Array(count * 2);
  for (let i = 0; i < count * 2; i++) xy[i] = dv.getUint16(HEADER + i * 2, true) / 8;
  const q = new Int8Array(bytes.buffer, bytes.byteOffset + HEADER + count * 4, count * XFEAT_DIM);
  const desc = new Float32Array(count * XFEAT_DIM);
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let c = 0; c < XFEAT_DIM; c++) norm += q[i * XFEAT_DIM + c]! ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let c = 0; c < XFEAT_DIM; c++) desc[i * XFEAT_DIM + c] = q[i * XFEAT_DIM + c]! / norm;
  }
  return { width: dv.getUint16(8, true), height: dv.getUint16(10, true), xy, desc, scores: new Float32Array(count), count };
}

let shared: Promise<XFeat> | undefined;
/** The process-wide XFeat (loaded lazily, once). */
export function loadXFeat(): Promise<XFeat> {
  shared ??= XFeat.load();
  shared.catch(() => (shared = undefined));
  return shared;
}
