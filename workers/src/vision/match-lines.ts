/**
 * The matched keypoints of one query/gallery pair, for drawing lines between the two photos in
 * review (issue 24: "nothing shows why a candidate matched"): the pairs verification kept
 * (`linesFromPairs`), or, for a photo it did not verify, the same matching and USAC re-run.
 */
import { unpackFeatures } from './keypoints.js';
import type { KindSettings } from './settings.js';
import { geometricInliers, tentativeMatches } from './verify.js';
import { mutualNearest } from './xfeat-match.js';
import { isXFeat, unpackXFeat } from './xfeat.js';
import { loadOpenCV } from './opencv.js';

/** Inlier coordinates as shares (0–1) of each photo's upright width and height, index-aligned. */
export interface MatchLines {
  query: Array<[number, number]>;
  candidate: Array<[number, number]>;
  /** Inliers found; `query`/`candidate` keep at most `max` of them. */
  inliers: number;
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

/** Ratio-tested one-to-one AKAZE pairs, exactly as verification pairs them. */
const akazePairs = tentativeMatches;

/** Matched keypoints of a query and one enrolled photo; null when the bytes are of different extractors. */
export async function matchLines(query: Uint8Array, gallery: Uint8Array, s: KindSettings, max = 60): Promise<MatchLines | null> {
  if (isXFeat(query) !== isXFeat(gallery)) return null;
  const [q, g] = unpackBoth(query, gallery);
  const tentative = isXFeat(query)
    ? mutualNearest(q as ReturnType<typeof unpackXFeat>, g as ReturnType<typeof unpackXFeat>, s.xfeatMinCos)
    : q.count < 8 || g.count < 8
      ? []
      : akazePairs(await loadOpenCV(), q as ReturnType<typeof unpackFeatures>, g as ReturnType<typeof unpackFeatures>, s.ratio);
  const pairs: Array<[number, number]> = [];
  await geometricInliers(q, g, tentative, 6, pairs);
  return draw(q, g, pairs, max);
}

/**
 * The lines for pairs verification already found (IdentifyResult.pairs, flat query/gallery
 * indices): no matching again. Null when the bytes are of different extractors.
 */
export function linesFromPairs(query: Uint8Array, gallery: Uint8Array, flat: Int32Array, max = 60): MatchLines | null {
  if (isXFeat(query) !== isXFeat(gallery)) return null;
  const [q, g] = unpackBoth(query, gallery);
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return draw(q, g, pairs, max);
}

type Points = { xy: Float32Array; width: number; height: number };

function unpackBoth(query: Uint8Array, gallery: Uint8Array): [Points & { count: number }, Points & { count: number }] {
  return isXFeat(query) ? [unpackXFeat(query), unpackXFeat(gallery)] : [unpackFeatures(query), unpackFeatures(gallery)];
}

function draw(q: Points, g: Points, pairs: ReadonlyArray<readonly [number, number]>, max: number): MatchLines {
  // Spread the kept lines over the whole set rather than the first few.
  const step = Math.max(1, pairs.length / max);
  const kept: Array<readonly [number, number]> = [];
  for (let i = 0; i < pairs.length && kept.length < max; i += step) kept.push(pairs[Math.floor(i)]!);
  return {
    query: kept.map(([qi]) => [round(q.xy[qi * 2]! / q.width), round(q.xy[qi * 2 + 1]! / q.height)]),
    candidate: kept.map(([, gi]) => [round(g.xy[gi * 2]! / g.width), round(g.xy[gi * 2 + 1]! / g.height)]),
    inliers: pairs.length,
  };
}
