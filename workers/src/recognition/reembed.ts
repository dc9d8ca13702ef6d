import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import { descriptorsRepo } from '../../../shared/src/repos/descriptors.repo.js';
import type { RecognitionEngine } from '../vision/engine.js';
import type { Pools } from './pool.js';
import { descriptorRow } from './quality-row.js';
import { refitMissingCalibrations } from './owner-calibration.js';
import type { LearnedGalleries } from './learned-gallery.port.js';

export interface ReembedDeps {
  c: Container;
  engine: RecognitionEngine;
  pools: Pools;
  learned?: LearnedGalleries;
}

/**
 * Re-embed with the current model every image that lacks its descriptor, then drop cached
 * indexes so they are rebuilt from the new rows. Descriptors of older versions stay (never mixed,
 * never searched). Then each owner's calibration is fitted for the new pipeline, so verdicts
 * keep resting on the owner's own photos rather than the kind's defaults. Idempotent: a retry
 * only does what is still missing.
 */
export async function reembedMissing(deps: ReembedDeps, ownerId?: string) {
  const { c, engine } = deps;
  let done = 0;
  let skipped = 0;
  // Images (of one owner, or all) that have no descriptor from the engine's current model.
  for (const img of await descriptorsRepo.undescribed(c.db, engine.model, ownerId)) {
    const bytes = await c.blobs.get(img.cid);
    if (!bytes) throw new Error(`blob ${img.cid} missing from the store`);
    // Photos accepted under an older model are re-described without the quality gate.
    const d = await engine.describe(bytes, { kind: img.kind, enforceQuality: false }).catch(() => null);
    if (!d) {
      skipped++;
      continue;
    }
    // Stored for the photo's own account: the reindex job runs for it (one owner's, or every owner's photos).
    await descriptorsRepo.insert(c.db, scopeOfJob(img), descriptorRow(img.id, d));
    done++;
  }
  deps.pools.reset();
  const calibrations = await refitMissingCalibrations(deps, ownerId);
  return { model: engine.model, reembedded: done, skipped, calibrations };
}
