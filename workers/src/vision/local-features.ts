/**
 * Local evidence for the engine, whichever extractor a kind uses: describe
 * one image into its stored bytes, and verify a query against shortlisted
 * gallery images: tentative matches for the whole shortlist in one batched ONNX call (AKAZE's
 * ratio test on Hamming distances, hamming-match.ts; XFeat's mutual nearest neighbours,
 * xfeat-match.ts), then the geometric check of every pair (USAC per pair, or the batched graph of
 * robust-fit.ts).
 */
import type { DecodedImage } from './intake.js';
import { extractFeatures, packFeatures, unpackFeatures } from './keypoints.js';
import type { KindSettings } from './settings.js';
import { hammingMatchesBatch } from './hamming-match.js';
import { batchedInliers, fitProvider, type FitTask } from './robust-fit.js';
import { geometricInliers, inlierSpread } from './verify.js';
import { mutualNearestBatch } from './xfeat-match.js';
import { isXFeat, loadXFeat, packXFeat, unpackXFeat, type XFeat, type XFeatFeatures, type XFeatOptions } from './xfeat.js';
import { cudaLibraryPresent } from './registry.js';

/** Reprojection threshold in pixels at a 640 px long side. */
const REPROJ_PX = 6;

/** How a kind's settings ask XFeat to describe. */
function xfeatOptions(s: KindSettings): XFeatOptions {
  return { side: s.localSide, topK: s.xfeatTopK, maxUpscale: s.xfeatMaxUpscale };
}

/** Stored local-feature bytes of one image. */
export async function describeLocal(img: DecodedImage, s: KindSettings, xfeat: () => Promise<XFeat> = loadXFeat): Promise<Uint8Array> {
  if (s.local === 'xfeat') {
    const [f] = await (await xfeat()).extract([img], xfeatOptions(s));
    return packXFeat(f!);
  }
  return packFeatures(await extractFeatures(img, { side: s.localSide, maxKeypoints: s.maxKeypoints }));
}

/**
 * `describeLocal` for several images: XFeat images with the same settings go through the model
 * in one run (batched inference, issue 22); each result is that image's bytes or its error.
 */
export async function describeLocalMany(
  items: readonly { img: DecodedImage; s: KindSettings }[],
  xfeat: () => Promise<XFeat> = loadXFeat,
): Promise<(Uint8Array | Error)[]> {
  const out: (Uint8Array | Error)[] = new Array(items.length);
  const groups = new Map<string, number[]>();
  for (const [i, it] of items.entries()) {
    if (it.s.local === 'xfeat') {
      const key = JSON.stringify(xfeatOptions(it.s));
      groups.set(key, [...(groups.get(key) ?? []), i]);
      continue;
    }
    out[i] = await describeLocal(it.img, it.s, xfeat).catch((e: Error) => e);
  }
  for (const idx of groups.values()) {
    const s = items[idx[0]!]!.s;
    try {
      const feats = await (
        await xfeat()
      ).extract(
        idx.map((i) => items[i]!.img),
        xfeatOptions(s),
      );
      idx.forEach((i, k) => (out[i] = packXFeat(feats[k]!)));
    } catch (err) {
      for (const i of idx) out[i] = err as Error;
    }
  }
  return out;
}

/** Inliers (query keypoint indices) and their spread for one gallery image. */
export interface LocalScore {
  inliers: Int32Array;
  spread: number;
  /** The inlier pairs, flat (query index, gallery index, ...): review draws them as match lines. */
  pairs: Int32Array;
}

/**
 * Verifies the query's local features against each gallery image's; images
 * whose bytes are missing or of the other extractor get no evidence.
 */
export async function verifyLocal(
  query: Uint8Array,
  gallery: ReadonlyMap<string, Uint8Array>,
  ids: readonly string[],
  s: KindSettings,
): Promise<Map<string, LocalScore>> {
  const xfeat = isXFeat(query);
  const use = ids.filter((id) => gallery.has(id) && isXFeat(gallery.get(id)!) === xfeat);
  let tasks: FitTask[];
  if (xfeat) {
    const q = unpackXFeat(query);
    const feats: XFeatFeatures[] = use.map((id) => unpackXFeat(gallery.get(id)!));
    const pairs = await mutualNearestBatch(q, feats, s.xfeatMinCos);
    tasks = feats.map((g, i) => ({ q, g, pairs: pairs[i]! }));
  } else {
    const q = unpackFeatures(query);
    const feats = use.map((id) => unpackFeatures(gallery.get(id)!));
    // A pair with fewer than MIN_TENTATIVE matches gets no fit, whichever way they were found.
    const pairs = await hammingMatchesBatch(q, feats, s.ratio);
    tasks = feats.map((g, i) => ({ q, g, pairs: pairs[i]! }));
  }
  const kept = await fitAll(tasks, s);
  const out = new Map<string, LocalScore>();
  for (const [i, id] of use.entries()) {
    const inliers = Int32Array.from(kept[i]!, ([qi]) => qi);
    out.set(id, { inliers, spread: inlierSpread(tasks[i]!.q, inliers), pairs: Int32Array.from(kept[i]!.flat()) });
  }
  return out;
}

let onCuda: Promise<boolean> | undefined;

/**
 * Whether the fit's graph runs on CUDA here, decided once a process: `auto` asks for the graph's
 * session only where a CUDA provider library is installed.
 */
function fitOnCuda(): Promise<boolean> {
  onCuda ??= cudaLibraryPresent() ? fitProvider().then((p) => p === 'cuda') : Promise.resolve(false);
  return onCuda;
}

/**
 * The geometric check of every pair, as the kind's `fit` says: the batched graph (robust-fit.ts)
 * for the whole shortlist in one run, or USAC pair by pair.
 */
async function fitAll(tasks: readonly FitTask[], s: KindSettings): Promise<Array<Array<[number, number]>>> {
  const graph = s.fit === 'graph' || (s.fit === 'auto' && (await fitOnCuda()));
  if (graph) return batchedInliers(tasks, REPROJ_PX);
  const out: Array<Array<[number, number]>> = [];
  for (const t of tasks) {
    const kept: Array<[number, number]> = [];
    await geometricInliers(t.q, t.g, t.pairs, REPROJ_PX, kept);
    out.push(kept);
  }
  return out;
}

/** Keypoints stored in a local-feature buffer of either extractor. */
export function keypointCount(bytes: Uint8Array): number {
  return isXFeat(bytes) ? unpackXFeat(bytes).count : unpackFeatures(bytes).count;
}
