import type { Container } from '../../../shared/src/container.js';
import type { RecognitionEngine } from '../vision/engine.js';
import type { Pools } from './pool.js';
import { vectorToBytes } from './bytes.js';
import { qualityOf } from './quality-row.js';
import { refitMissingCalibrations } from './owner-calibration.js';
import type { LearnedGalleries } from './learned-gallery.port.js';

/** Images (of one owner, or all) that have no descriptor from the engine's current model. */
async function missing(c: Container, engine: RecognitionEngine, owner?: string) {
  const r = await c.db.query<{ id: string; owner_id: string; cid: string; kind: 'tree' | 'fruit' | 'animal' }>(
    `select i.id, i.owner_id, i.cid, ind.kind from images i join individuals ind on ind.id = i.individual_id
      where ($3::uuid is null or i.owner_id = $3)
        and not exists (select 1 from descriptors d where d.image_id = i.id and d.model = $1 and d.model_version = $2)`,
    [engine.model.name, engine.model.version, owner ?? null],
  );
  return r.rows;
}

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
  for (const img of await missing(c, engine, ownerId)) {
    const bytes = await c.blobs.get(img.cid);
    if (!bytes) throw new Error(`blob ${img.cid} missing from the store`);
    // Photos accepted under an older model are re-described without the quality gate.
    const d = await engine.describe(bytes, { kind: img.kind, enforceQuality: false }).catch(() => null);
    if (!d) {
      skipped++;
      continue;
    }
    await c.db.query(
      `insert into descriptors (image_id, owner_id, model, model_version, global, local, quality, models, subject)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing`,
      [
        img.id,
        img.owner_id,
        d.model.name,
        d.model.version,
        vectorToBytes(d.global),
        Buffer.from(d.local),
        qualityOf(d),
        JSON.stringify(d.models),
        d.subject ? JSON.stringify(d.subject) : null,
      ],
    );
    done++;
  }
  deps.pools.reset();
  const calibrations = await refitMissingCalibrations(deps, ownerId);
  return { model: engine.model, reembedded: done, skipped, calibrations };
}
