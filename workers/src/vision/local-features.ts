/**
 * Local evidence for the engine, whichever extractor a kind uses: describe
 * one image into its stored bytes, and verify a query against shortlisted
 * gallery images (AKAZE pair by pair; XFeat mutual nearest neighbours for the
 * whole shortlist in one batched ONNX call, then USAC per pair).
 */
import type { DecodedImage } from './intake.js';
import { extractFeatures, packFeatures, unpackFeatures } from './keypoints.js';
import type { KindSettings } from './settings.js';
import { geometricInliers, inlierSpread, verifyPair } from './verify.js';
import { mutualNearestBatch } from './xfeat-match.js';
import { isXFeat, loadXFeat, packXFeat, unpackXFeat, type XFeat, type XFeatFeatures } from './xfeat.js';

/** Stored local-feature bytes of one image. */
export async function describeLocal(img: DecodedImage, s: KindSettings, xfeat: () => Promise<XFeat> = loadXFeat): Promise<Uint8Array> {
  if (s.local === 'xfeat') {
    const [f] = await (await xfeat()).extract([img], { side: s.localSide, topK: s.xfeatTopK });
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
      const key = `${it.s.localSide}/${it.s.xfeatTopK}`;
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
        { side: s.localSide, topK: s.xfeatTopK },
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
  const out = new Map<string, LocalScore>();
  if (isXFeat(query)) {
    const q = unpackXFeat(query);
    const use = ids.filter((id) => gallery.has(id) && isXFeat(gallery.get(id)!));
    const feats: XFeatFeatures[] = use.map((id) => unpackXFeat(gallery.get(id)!));
    const pairs = await mutualNearestBatch(q, feats, s.xfeatMinCos);
    for (const [i, id] of use.entries()) {
      const kept: Array<[number, number]> = [];
      const inliers = await geometricInliers(q, feats[i]!, pairs[i]!, 6, kept);
      out.set(id, { inliers, spread: inlierSpread(q, inliers), pairs: Int32Array.from(kept.flat()) });
    }
    return out;
  }
  const q = unpackFeatures(query);
  for (const id of ids) {
    const bytes = gallery.get(id);
    if (!bytes || isXFeat(bytes)) continue;
    const kept: Array<[number, number]> = [];
    const ev = await verifyPair(q, unpackFeatures(bytes), { ratio: s.ratio }, kept);
    out.set(id, { inliers: ev.inliers, spread: inlierSpread(q, ev.inliers), pairs: Int32Array.from(kept.flat()) });
  }
  return out;
}

/** Keypoints stored in a local-feature buffer of either extractor. */
export function keypointCount(bytes: Uint8Array): number {
  return isXFeat(bytes) ? unpackXFeat(bytes).count : unpackFeatures(bytes).count;
}
