/**
 * Geometric verification of one query/gallery pair on the CPU: ratio-tested, one-to-one
 * descriptor matches (AKAZE), then a homography fitted with OpenCV's USAC (RANSAC family);
 * the inliers are the evidence. robust-fit.ts is the batched graph that can take USAC's place.
 */
import type { LocalFeatures } from './keypoints.js';
import { loadOpenCV, type CV } from './opencv.js';

export interface PairEvidence {
  /** Tentative matches that survived the ratio test and one-to-one filtering. */
  tentative: number;
  /** Query keypoint indices that are geometric inliers. */
  inliers: Int32Array;
}

/** Fewest tentative matches a homography is fitted to. */
export const MIN_TENTATIVE = 8;
let matcher: CV | undefined;

function descMat(cv: CV, f: LocalFeatures): CV {
  const m = new cv.Mat(f.count, f.descBytes, cv.CV_8UC1);
  m.data.set(f.desc);
  return m;
}

/** Ratio test, then keep only the best query match per gallery keypoint. */
export function tentativeMatches(cv: CV, q: LocalFeatures, g: LocalFeatures, ratio: number): Array<[number, number]> {
  matcher ??= new cv.BFMatcher(cv.NORM_HAMMING, false);
  const qm = descMat(cv, q);
  const gm = descMat(cv, g);
  const knn = new cv.DMatchVectorVector();
  const best = new Map<number, { q: number; d: number }>();
  try {
    matcher.knnMatch(qm, gm, knn, 2);
    for (let i = 0; i < knn.size(); i++) {
      const v = knn.get(i);
      if (v.size() >= 2) {
        const m0 = v.get(0);
        const m1 = v.get(1);
        if (m0.distance < ratio * m1.distance) {
          const prev = best.get(m0.trainIdx);
          if (!prev || m0.distance < prev.d) best.set(m0.trainIdx, { q: m0.queryIdx, d: m0.distance });
        }
      }
      v.delete();
    }
  } finally {
    qm.delete();
    gm.delete();
    knn.delete();
  }
  return [...best.entries()].map(([gi, { q: qi }]) => [qi, gi]);
}

/**
 * Query keypoint indices of the pairs that a homography fitted with USAC
 * keeps (reprojection threshold in pixels at a 640 px long side). Shared by
 * the AKAZE and XFeat matchers.
 */
export async function geometricInliers(
  q: { xy: Float32Array },
  g: { xy: Float32Array; width: number; height: number },
  pairs: ReadonlyArray<readonly [number, number]>,
  reprojPx: number,
  /** When given, receives the inlier pairs as (query index, gallery index), for drawing match lines. */
  pairsOut?: Array<[number, number]>,
): Promise<Int32Array> {
  if (pairs.length < MIN_TENTATIVE) return new Int32Array(0);
  const cv = await loadOpenCV();
  const src = cv.matFromArray(
    pairs.length,
    1,
    cv.CV_32FC2,
    pairs.flatMap(([qi]) => [q.xy[qi * 2]!, q.xy[qi * 2 + 1]!]),
  );
  const dst = cv.matFromArray(
    pairs.length,
    1,
    cv.CV_32FC2,
    pairs.flatMap(([, gi]) => [g.xy[gi * 2]!, g.xy[gi * 2 + 1]!]),
  );
  const mask = new cv.Mat();
  const scale = Math.max(g.width, g.height) / 640;
  let H: CV | undefined;
  try {
    H = cv.findHomography(src, dst, cv.USAC_DEFAULT, reprojPx * scale, mask);
    if (H.empty() || mask.rows !== pairs.length) return new Int32Array(0);
    const m = mask.data as Uint8Array;
    const inl: number[] = [];
    for (let i = 0; i < pairs.length; i++)
      if (m[i]) {
        inl.push(pairs[i]![0]);
        pairsOut?.push([pairs[i]![0], pairs[i]![1]]);
      }
    return Int32Array.from(inl);
  } finally {
    H?.delete();
    src.delete();
    dst.delete();
    mask.delete();
  }
}

/**
 * Share of a coarse 4x4 grid over the query's inlier bounding region that
 * holds inliers, times the bounding box's share of the image: near 0 when the
 * inliers are a tight clump, higher when they cover the object.
 */
export function inlierSpread(q: { xy: Float32Array; width: number; height: number }, inliers: Int32Array): number {
  if (inliers.length < 4) return 0;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const i of inliers) {
    const x = q.xy[i * 2]!;
    const y = q.xy[i * 2 + 1]!;
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  const cells = new Set<number>();
  const w = Math.max(1, x1 - x0);
  const h = Math.max(1, y1 - y0);
  for (const i of inliers) {
    const cx = Math.min(3, Math.floor(((q.xy[i * 2]! - x0) / w) * 4));
    const cy = Math.min(3, Math.floor(((q.xy[i * 2 + 1]! - y0) / h) * 4));
    cells.add(cy * 4 + cx);
  }
  return (cells.size / 16) * Math.sqrt((w * h) / (q.width * q.height));
}
