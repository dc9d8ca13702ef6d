/**
 * Identify through a learned metric: the gallery is searched in the learned space (an index over
 * projected enrolled embeddings), the query is projected the same way, and keypoint
 * verification is unchanged. Stored descriptors stay those of the base model, so adopting or
 * rolling back a version needs no re-embedding; the version is reported with every answer.
 */
import { join } from 'node:path';
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { GalleryHit, GalleryLookup, RecognitionEngine } from '../vision/engine.js';
import type { ModelRef } from '../vision/embed.js';
import { checksumIds, openOwnerIndex, type IndexFilter, type IndexRow, type OwnerIndex } from '../index/owner-index.js';
import { bytesToVector } from '../recognition/bytes.js';
import { project, type LinearMetric } from './metric.js';
import { adoptedVersion, LEARNED_MODEL_NAME } from './store.js';

/** A gallery searched in a learned space. `inner` holds projected embeddings. */
export function projectingGallery(inner: GalleryLookup, metric: LinearMetric, learned: ModelRef): GalleryLookup {
  return {
    learned,
    search: (global: Float32Array, k: number) => inner.search(project(metric, global), k),
    localFeatures: (ids) => inner.localFeatures(ids),
  };
}

/** Enrolled rows of these owners and kind under the base model, projected into the learned space. */
async function projectedRows(c: Container, engine: RecognitionEngine, owners: readonly string[], kind: Kind, metric: LinearMetric): Promise<IndexRow[]> {
  const r = await c.db.query<{ image_id: string; individual_id: string; farm_id: string | null; tree_id: string | null; global: Uint8Array }>(
    `select d.image_id, i.individual_id, ind.farm_id, ind.tree_id, d.global from descriptors d
       join images i on i.id = d.image_id join individuals ind on ind.id = i.individual_id
      where d.owner_id = any($1::uuid[]) and ind.kind = $2 and d.model = $3 and d.model_version = $4 and ind.deleted_at is null`,
    [owners, kind, engine.model.name, engine.model.version],
  );
  return r.rows.map((x) => ({ id: x.image_id, individualId: x.individual_id, kind, farmId: x.farm_id, treeId: x.tree_id, vector: project(metric, bytesToVector(x.global)) }));
}

/**
 * Galleries through the caller's adopted learned metric, when it has one for the kind. Each
 * projected index is a cache of the descriptors table under DATA_DIR/index/learned, rebuilt when
 * the version or the enrolled rows change.
 */
export function createLearnedGalleries(c: Container, engine: RecognitionEngine) {
  const cache = new Map<string, OwnerIndex>();
  return {
    /**
     * The caller's learned gallery over `owners`' pools, or null when the caller has adopted no
     * version for this kind (identify then uses the base gallery).
     */
    async gallery(callerId: string, owners: readonly string[], filter: IndexFilter, base: GalleryLookup): Promise<GalleryLookup | null> {
      const v = await adoptedVersion(c.db, callerId, filter.kind, engine.model);
      if (!v) return null;
      const ids = await c.db.query<{ image_id: string }>(
        `select d.image_id from descriptors d join images i on i.id = d.image_id join individuals ind on ind.id = i.individual_id
          where d.owner_id = any($1::uuid[]) and ind.kind = $2 and d.model = $3 and d.model_version = $4 and ind.deleted_at is null`,
        [owners, filter.kind, engine.model.name, engine.model.version],
      );
      const modelVersion = `${engine.model.version}+${LEARNED_MODEL_NAME}-${v.version}`;
      const expected = { modelVersion, count: ids.rows.length, idsChecksum: checksumIds(ids.rows.map((x) => x.image_id)) };
      const key = `${callerId}:${filter.kind}:${[...owners].sort().join(',')}`;
      let index = cache.get(key);
      if (!index || index.isStale(expected)) {
        index = (await openOwnerIndex({
          root: join(c.config.indexDir, 'learned'), ownerId: key, modelVersion, dim: v.metric.dimOut, expected,
          loadRows: () => projectedRows(c, engine, owners, filter.kind, v.metric),
        })).index;
        cache.set(key, index);
      }
      const ix = index;
      const inner: GalleryLookup = {
        search: (vector: Float32Array, k: number): GalleryHit[] => ix.search(vector, k, filter),
        localFeatures: (imageIds) => base.localFeatures(imageIds),
      };
      return projectingGallery(inner, v.metric, { name: LEARNED_MODEL_NAME, version: String(v.version) });
    },
  };
}

export type LearnedGalleries = ReturnType<typeof createLearnedGalleries>;
