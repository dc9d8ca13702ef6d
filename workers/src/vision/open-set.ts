/**
 * Calibration samples from a gallery alone, the open set included: each held-out photo is
 * identified against the rest of the gallery (its top answer is right or wrong), then again with
 * its whole individual hidden, standing for an animal, tree or fruit that was never enrolled (its
 * top answer is always a false match if accepted). The owner's service calibration
 * (recognition/owner-calibration.ts) and the accuracy benchmark both fit on these.
 */
import type { CalibrationParams, SeveralScope } from './calibrate.js';
import { chooseThreshold, type ScoredQuery } from './threshold.js';
import type { Descriptor, GalleryLookup, RecognitionEngine } from './engine.js';
import type { QuerySample } from './fused-fit.js';
import type { Kind, KindSettings } from './settings.js';

/** A gallery with some images hidden from search (a held-out photo, or a whole individual). */
export function hiding(g: GalleryLookup, hidden: ReadonlySet<string>): GalleryLookup {
  if (hidden.size === 0) return g;
  return {
    ...(g.learned ? { learned: g.learned } : {}),
    async search(global, k, query) {
      const hits = await g.search(global, k + hidden.size, query);
      return hits.filter((h) => !hidden.has(h.id)).slice(0, k);
    },
    localFeatures: (ids) => g.localFeatures(ids),
  };
}

export interface HeldOutPhoto {
  imageId: string;
  individualId: string;
  descriptor: Descriptor;
  /** Narrows the gallery for this photo (fruit identified within its own tree); the whole gallery otherwise. */
  gallery?: GalleryLookup;
}

/**
 * Identifies every held-out photo twice (photo hidden; individual hidden, where `openSetOf` allows)
 * through the engine as served: the same settings, ordering and calibration a query would meet.
 * @param photosOf every enrolled image id of an individual (to hide it whole)
 */
export async function openSetSamples(
  engine: RecognitionEngine,
  req: {
    kind: Kind;
    gallery: GalleryLookup;
    settings?: Partial<KindSettings>;
    calibration?: CalibrationParams;
    /**
     * Whose photos are also asked with their individual hidden (default: everyone's). A fine-tuned
     * backbone knows the individuals it trained on even when they are hidden, so only those it
     * never saw can stand for an animal that was never enrolled.
     */
    openSetOf?: (individualId: string) => boolean;
  },
  heldOut: readonly HeldOutPhoto[],
  photosOf: (individualId: string) => readonly string[],
  onProgress?: (done: number) => void,
): Promise<QuerySample[]> {
  const out: QuerySample[] = [];
  for (const [i, h] of heldOut.entries()) {
    const base = h.gallery ?? req.gallery;
    const ask = (hidden: ReadonlySet<string>) =>
      engine.identify({
        kind: req.kind,
        queries: [h.descriptor],
        gallery: hiding(base, hidden),
        settings: req.settings,
        calibration: req.calibration,
      });
    const others = photosOf(h.individualId).filter((id) => id !== h.imageId);
    // A photo whose individual has no other photo is an open-set query already.
    if (others.length > 0) {
      const top = (await ask(new Set([h.imageId]))).ranked[0];
      if (top) out.push({ evidence: top.evidence, same: top.individualId === h.individualId, group: h.individualId });
    }
    const open = req.openSetOf && !req.openSetOf(h.individualId) ? undefined : (await ask(new Set([h.imageId, ...others]))).ranked[0];
    if (open) out.push({ evidence: open.evidence, same: false, group: h.individualId, openSet: true });
    onProgress?.(i + 1);
  }
  return out;
}

/**
 * Several-photo samples: the held-out photos of each individual, `size` at a time in their
 * order, each group identified as one query (as several photos of one animal, or a survey
 * track's crops, are), with the group's photos hidden and again with its individual hidden.
 * `req.calibration` (the one-photo fit) gives the probabilities and the order; only a threshold
 * is chosen on these (recognition/owner-calibration.ts).
 */
export async function openSetGroupSamples(
  engine: RecognitionEngine,
  req: Parameters<typeof openSetSamples>[1] & { calibration: CalibrationParams },
  heldOut: readonly HeldOutPhoto[],
  photosOf: (individualId: string) => readonly string[],
  size = 2,
): Promise<ScoredQuery[]> {
  const byInd = new Map<string, HeldOutPhoto[]>();
  for (const h of heldOut) byInd.set(h.individualId, [...(byInd.get(h.individualId) ?? []), h]);
  const out: ScoredQuery[] = [];
  for (const [ind, list] of byInd) {
    for (let i = 0; i + size <= list.length; i += size) {
      const group = list.slice(i, i + size);
      const base = group[0]!.gallery ?? req.gallery;
      const ask = (hidden: ReadonlySet<string>) =>
        engine.identify({
          kind: req.kind,
          queries: group.map((h) => h.descriptor),
          gallery: hiding(base, hidden),
          settings: req.settings,
          calibration: req.calibration,
        });
      const ids = new Set(group.map((h) => h.imageId));
      const others = photosOf(ind).filter((id) => !ids.has(id));
      if (others.length > 0) {
        const top = (await ask(ids)).ranked[0];
        if (top) out.push({ p: top.probability, right: top.individualId === ind, group: ind, openSet: false });
      }
      if (req.openSetOf && !req.openSetOf(ind)) continue;
      const open = (await ask(new Set([...ids, ...others]))).ranked[0];
      if (open) out.push({ p: open.probability, right: false, group: ind, openSet: true });
    }
  }
  return out;
}

/**
 * Photos per several-photo query that get a threshold of their own; a query of more photos is
 * decided by its first two, asked as a pair, or without a vouched pair by the every-photo rule
 * (decide.ts). Only pairs: thresholds fitted the same way on groups of 3 and 4 of the gallery's
 * held-out photos did not hold on real query photos. On holstein-dev the triples' threshold showed
 * no false match on the gallery, yet let several times the promised rate through on real query
 * triples: a cow's gallery photos are frames of one video, so a group of them adds little over one
 * photo, while a group of real photos gives a wrong cow more chances. Pairs held
 * (benchmarks/results/several-photos-holstein-dev-2026-11-25-by-size.json; benchmarks/results/README.md,
 * "Several photos as one query").
 */
export const SEVERAL_SIZES = [2] as const;

/**
 * The `match` thresholds for several-photo queries, one per size of SEVERAL_SIZES, each chosen on
 * groups of that many held-out photos asked as one query, under the same 1% bound as one photo;
 * withheld (1.01) for a size whose groups cannot vouch for it. Sizes with no group at all are left out.
 */
export async function fitSeveralScopes(
  engine: RecognitionEngine,
  req: Parameters<typeof openSetGroupSamples>[1],
  heldOut: readonly HeldOutPhoto[],
  photosOf: (individualId: string) => readonly string[],
): Promise<SeveralScope[]> {
  const out: SeveralScope[] = [];
  for (const groupSize of SEVERAL_SIZES) {
    const samples = await openSetGroupSamples(engine, req, heldOut, photosOf, groupSize);
    if (!samples.length) continue;
    // By kind of query and individual: each kind's bound counts independent groups (threshold.ts).
    const choice = chooseThreshold(samples);
    out.push({
      matchThreshold: choice.threshold ?? 1.01,
      groupSize,
      queries: samples.length,
      falseMatches: choice.falseMatches,
      fmrUpper: choice.fmrUpper,
    });
  }
  return out;
}

/**
 * A deterministic spread of held-out photos: round-robin over individuals (each gives its photos
 * in a fixed order: `order`, else the image id), so a capped sample still covers as many
 * individuals as possible.
 */
export function pickHeldOut<T extends { imageId: string; individualId: string; order?: string }>(photos: readonly T[], max: number): T[] {
  const byInd = new Map<string, T[]>();
  const key = (p: T) => p.order ?? p.imageId;
  for (const p of [...photos].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.imageId < b.imageId ? -1 : 1))) {
    const list = byInd.get(p.individualId) ?? [];
    list.push(p);
    byInd.set(p.individualId, list);
  }
  const lists = [...byInd.values()];
  const out: T[] = [];
  for (let round = 0; out.length < max; round++) {
    let any = false;
    for (const l of lists) {
      if (round < l.length && out.length < max) {
        out.push(l[round]!);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}
