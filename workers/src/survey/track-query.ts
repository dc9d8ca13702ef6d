/**
 * The order a track's crops are asked in as one several-photo query. The engine decides a query of
 * more than two photos by its first two as a pair, under the pairs' threshold (vision/decide.ts,
 * `decideSeveral`), a bound that holds only because the pair is fixed before any evidence is
 * seen. In time order that pair was the track's first two crops, usually the animal entering the
 * picture: small, cut by the frame edge, unsure. Ordered by the tracker's crop quality instead
 * (detector confidence × size, cut crops discounted: pipeline.ts `cropQuality`), the pair is the
 * two best-seen views, still chosen without looking at who they resemble, so the bound holds
 * and a track whose best crops clearly show an enrolled animal is named (issue 39).
 *
 * ```ts
 * const order = bestSeenFirst(track.crops); // indices into track.crops, best first
 * ```
 */
export function bestSeenFirst(crops: readonly { quality: number; at: number }[]): number[] {
  return crops
    .map((c, i) => ({ i, q: c.quality, at: c.at }))
    .sort((a, b) => b.q - a.q || a.at - b.at)
    .map((x) => x.i);
}
