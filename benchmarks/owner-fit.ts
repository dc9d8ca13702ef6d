/**
 * An owner's gallery held in memory, and the owner's calibration fitted on it as the service fits
 * it (recognition/owner-calibration.ts): held-out gallery photos asked with the photo hidden and
 * with their individual hidden, then pairs of them for the several-photo threshold. For benchmarks
 * that enrol in-process, with no database (bench:survey, bench:several).
 */
import type { Descriptor, GalleryLookup, RecognitionEngine } from '../workers/src/vision/engine.js';
import { fitFusedCalibration, type FusedFitReport, type QuerySample } from '../workers/src/vision/fused-fit.js';
import { fitSeveralScopes, openSetSamples, pickHeldOut } from '../workers/src/vision/open-set.js';
import type { Kind } from '../workers/src/vision/settings.js';
import { loadConfig } from '../shared/src/config/config.js';

export interface GalleryEntry {
  id: string;
  individualId: string;
  d: Descriptor;
}

/** Exact search by cosine over every entry (the entries' global vectors are L2-normalised). */
export function memoryGallery(entries: readonly GalleryEntry[]): GalleryLookup {
  return {
    search(q, k) {
      return entries
        .map((e) => {
          let s = 0;
          for (let i = 0; i < q.length; i++) s += q[i]! * e.d.global[i]!;
          return { id: e.id, individualId: e.individualId, similarity: s };
        })
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, k);
    },
    localFeatures: (ids) => new Map(ids.map((id) => [id, entries.find((e) => e.id === id)!.d.local])),
  };
}

/** The fit, with `params.several` set when it has params; null params: the kind's defaults decide. */
export async function fitOwnerAsServed(
  engine: RecognitionEngine,
  kind: Kind,
  entries: readonly GalleryEntry[],
  gallery: GalleryLookup,
): Promise<FusedFitReport & { samples: QuerySample[] }> {
  const photosOf = new Map<string, string[]>();
  for (const e of entries) photosOf.set(e.individualId, [...(photosOf.get(e.individualId) ?? []), e.id]);
  const ofInd = (id: string) => photosOf.get(id) ?? [];
  const held = pickHeldOut(
    entries.map((e) => ({ imageId: e.id, individualId: e.individualId, descriptor: e.d })),
    loadConfig().CALIBRATION_MAX_PHOTOS,
  );
  const samples = await openSetSamples(engine, { kind, gallery }, held, ofInd);
  const fit = fitFusedCalibration(samples);
  if (fit.params) fit.params.several = await fitSeveralScopes(engine, { kind, gallery, calibration: fit.params }, held, ofInd);
  return { ...fit, samples };
}
