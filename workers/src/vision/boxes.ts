/**
 * Box geometry shared by the detector (vision/detector.ts) and the survey tracker and its looks
 * (survey/tracker.ts, survey/views.ts), kept apart from both so the tracker loads no model runtime.
 */

/** A box in pixels of the decoded image: top-left corner and size. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function intersection(a: Box, b: Box): number {
  const ix = Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  return ix * iy;
}

/** Intersection over union of two boxes. */
export function iou(a: Box, b: Box): number {
  const inter = intersection(a, b);
  return inter / Math.max(1e-9, a.w * a.h + b.w * b.h - inter);
}

/** The share of box a's area that lies inside box b. */
export function insideShare(a: Box, b: Box): number {
  return intersection(a, b) / Math.max(1e-9, a.w * a.h);
}

/**
 * Greedy NMS over boxes sorted best first: a box overlapping a kept one by `threshold` IoU or more
 * is dropped; per class (`cocoClass`) unless `perClass` is false.
 */
export function nms<T extends { box: Box; cocoClass: number }>(sorted: readonly T[], threshold: number, perClass = true): T[] {
  const out: T[] = [];
  for (const d of sorted) {
    if (out.every((k) => (perClass && k.cocoClass !== d.cocoClass) || iou(k.box, d.box) < threshold)) out.push(d);
  }
  return out;
}
