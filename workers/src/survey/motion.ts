/**
 * Camera motion between consecutive frames, as BoT-SORT's global motion compensation does it:
 * corners on the previous (downscaled, grey) frame away from the detected animals, followed
 * into the current frame with pyramidal Lucas-Kanade optical flow, then a RANSAC homography.
 * Cheap enough for every frame of a drone pass (a 320 px frame, at most 200 corners).
 *
 * ```ts
 * const a = await greyFrame(rgb0, width, height), b = await greyFrame(rgb1, width, height);
 * const H = await estimateMotion(a, b, boxes);   // previous → current, in frame pixels; identity when too few corners
 * ```
 * The grey frames are plain bytes, so the estimate can run on an engine pool thread (its `motion`
 * job): on a GPU machine the survey's own thread sets the pace, and this took a third of it.
 */
import sharp from 'sharp';
import { loadOpenCV, type CV } from '../vision/opencv.js';
import type { Mat } from './kalman.js';
import type { Box } from './tracker.js';

/** Width the motion is measured at; sizes scale back up exactly. */
const SIDE = 320;
const MAX_CORNERS = 200;
const MIN_POINTS = 12;

/** A frame shrunk to grey at the width the motion is measured at (plain bytes: it crosses threads). */
export interface GreyFrame {
  grey: Uint8Array;
  width: number;
  height: number;
  /** Grey pixels per frame pixel. */
  scale: number;
}

export async function greyFrame(rgb: Buffer, width: number, height: number): Promise<GreyFrame> {
  const scale = Math.min(1, SIDE / width);
  const w = Math.max(8, Math.round(width * scale));
  const h = Math.max(8, Math.round(height * scale));
  const grey = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .resize(w, h, { fit: 'fill' })
    .greyscale()
    .raw()
    .toBuffer();
  return { grey, width: w, height: h, scale };
}

/** The homography from `prev` to `cur` in frame pixels, the identity when it cannot be told. */
export async function estimateMotion(prev: GreyFrame, cur: GreyFrame, boxes: readonly Box[]): Promise<Mat> {
  const cv = await loadOpenCV();
  const a = cv.matFromArray(prev.height, prev.width, cv.CV_8UC1, prev.grey);
  const b = cv.matFromArray(cur.height, cur.width, cv.CV_8UC1, cur.grey);
  try {
    return estimate(cv, a, b, boxes, prev.scale) ?? IDENTITY.map((r) => [...r]);
  } finally {
    a.delete();
    b.delete();
  }
}

const IDENTITY: Mat = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

function estimate(cv: CV, prev: unknown, cur: unknown, boxes: readonly Box[], s: number): Mat | null {
  const p = prev as { rows: number; cols: number };
  // Corners on the animals move with the animals, not the camera: mask them out.
  const mask = new cv.Mat(p.rows, p.cols, cv.CV_8UC1, new cv.Scalar(255));
  const corners = new cv.Mat();
  const nextPts = new cv.Mat();
  const status = new cv.Mat();
  const err = new cv.Mat();
  try {
    for (const b of boxes)
      cv.rectangle(
        mask,
        new cv.Point(Math.floor(b.x * s), Math.floor(b.y * s)),
        new cv.Point(Math.ceil((b.x + b.w) * s), Math.ceil((b.y + b.h) * s)),
        new cv.Scalar(0),
        -1,
      );
    cv.goodFeaturesToTrack(prev, corners, MAX_CORNERS, 0.01, 6, mask, 3, false, 0.04);
    if (corners.rows < MIN_POINTS) return null;
    cv.calcOpticalFlowPyrLK(prev, cur, corners, nextPts, status, err, new cv.Size(21, 21), 3);
    const src: number[] = [];
    const dst: number[] = [];
    for (let i = 0; i < corners.rows; i++) {
      if (!status.data[i]) continue;
      src.push(corners.data32F[2 * i]! / s, corners.data32F[2 * i + 1]! / s);
      dst.push(nextPts.data32F[2 * i]! / s, nextPts.data32F[2 * i + 1]! / s);
    }
    if (src.length / 2 < MIN_POINTS) return null;
    const a = cv.matFromArray(src.length / 2, 1, cv.CV_32FC2, src);
    const b = cv.matFromArray(dst.length / 2, 1, cv.CV_32FC2, dst);
    const inl = new cv.Mat();
    try {
      const H = cv.findHomography(a, b, cv.RANSAC, 3 / s, inl);
      try {
        if (H.rows !== 3) return null;
        const d = H.data64F as Float64Array;
        return [
          [d[0]!, d[1]!, d[2]!],
          [d[3]!, d[4]!, d[5]!],
          [d[6]!, d[7]!, d[8]!],
        ];
      } finally {
        H.delete();
      }
    } finally {
      a.delete();
      b.delete();
      inl.delete();
    }
  } finally {
    mask.delete();
    corners.delete();
    nextPts.delete();
    status.delete();
    err.delete();
  }
}
