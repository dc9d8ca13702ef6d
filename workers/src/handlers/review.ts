import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import { imagesRepo } from '../../../shared/src/repos/images.repo.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import type { Candidate, Descriptor, GalleryLookup } from '../vision/engine.js';
import { linesFromPairs, matchLines } from '../vision/match-lines.js';
import { settingsFor } from '../vision/settings.js';

/** How many individuals review shows, whatever the verdict (Wildbook shows a ranked list). */
export const REVIEW_SHOWN = 5;
/** Photos shown per individual in review. */
export const REVIEW_PHOTOS = 4;

/**
 * The closest individuals for review, on every verdict including `no_match` (issue 24): each with
 * several of its photos, best supporting first, and the matched keypoints between the query and
 * its best photo, so the owner sees why. `candidates` keeps the verdict's own list untouched.
 */
export async function closestForReview(
  c: Container,
  kind: Kind,
  ranked: readonly Candidate[],
  query: Descriptor | undefined,
  gallery: GalleryLookup,
  /** Inlier pairs verification found per image (IdentifyResult.pairs): drawn without matching again. */
  verified: ReadonlyMap<string, Int32Array> = new Map(),
) {
  const top = ranked.slice(0, REVIEW_SHOWN);
  if (!top.length) return [];
  const ids = top.map((x) => x.individualId);
  const inds = await individualsRepo.labelsOf(c.db, ids);
  const imgs = { rows: await imagesRepo.photosOf(c.db, ids) };
  const byInd = new Map(inds.map((r) => [r.id, r]));
  const s = settingsFor(kind);
  const shown = top.flatMap((x) => {
    const ind = byInd.get(x.individualId);
    if (!ind) return [];
    const own = imgs.rows.filter((r) => r.individual_id === x.individualId);
    // Supporting photos first (best first), then the rest of the individual's photos.
    const order = [
      ...x.imageIds.filter((id) => own.some((r) => r.id === id)),
      ...own.map((r) => r.id).filter((id) => !x.imageIds.includes(id)),
    ];
    const photos = order.slice(0, REVIEW_PHOTOS).map((id) => {
      const cid = own.find((r) => r.id === id)!.cid;
      return { image_id: id, cid, url: `/api/blobs/${cid}` };
    });
    return [{ x, ind, photos }];
  });
  // One fetch for every best photo's features, not one per candidate.
  const bests = query ? shown.flatMap((e) => (e.photos[0] ? [e.photos[0].image_id] : [])) : [];
  const features = bests.length ? await gallery.localFeatures(bests) : new Map<string, Uint8Array>();
  const out = [];
  for (const [rank, { x, ind, photos }] of shown.entries()) {
    const best = photos[0];
    let lines = null;
    const local = best && features.get(best.image_id);
    if (query && best && local) {
      const pairs = verified.get(best.image_id);
      const m = pairs ? linesFromPairs(query.local, local, pairs) : await matchLines(query.local, local, s);
      if (m) lines = { image_id: best.image_id, cid: best.cid, query_index: 0, ...m };
    }
    out.push({
      rank: rank + 1,
      individual_id: x.individualId,
      ...(kind === 'animal' ? { animal_did: animalDid(x.individualId) } : {}),
      name: ind.name,
      species: ind.species,
      farm_id: ind.farm_id,
      probability: Math.round(x.probability * 1e4) / 1e4,
      photos,
      match_lines: lines,
    });
  }
  return out;
}
