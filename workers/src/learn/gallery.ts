/**
 * Identify through a learned metric: the gallery is searched in the learned space (an index over
 * projected enrolled embeddings), the query is projected the same way, and keypoint
 * verification is unchanged. Stored descriptors stay those of the base model, so adopting or
 * rolling back a version needs no re-embedding; the version is reported with every answer.
 *
 * The learned space only chooses and orders the shortlist. Each hit's `similarity` stays the
 * base model's cosine, so the evidence keeps the scale the calibration was fitted on: a metric
 * trained on the gallery scores gallery photos too well, and a calibration fitted on such scores
 * let many false matches through on nyala-dev (benchmarks/results/learned-nyala-dev.json;
 * benchmarks/results/README.md, "The learned metric").
 */
import { join } from 'node:path';
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { GalleryHit, GalleryLookup, RecognitionEngine } from '../vision/engine.js';
import { cosine, type ModelRef } from '../vision/embed.js';
import { checksumIds, openOwnerIndex, type IndexFilter, type IndexRow, type OwnerIndex } from '../index/owner-index.js';
import { bytesToVector } from '../recognition/bytes.js';
import { project, type LinearMetric } from './metric.js';
import { poolImageIds, poolRows } from './pool-rows.js';
import { createBackboneGalleries } from './backbone-gallery.js';
import { adoptedVersion, LEARNED_MODEL_NAME } from './store.js';
import type { LearnedGalleries } from '../recognition/learned-gallery.port.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';

/**
 * A gallery searched in a learned space. `inner` holds projected embeddings; `baseOf` gives an
 * image's base-model embedding, whose cosine with the query is reported as the similarity.
 */
export function projectingGallery(
  inner: GalleryLookup,
  metric: LinearMetric,
  learned: ModelRef,
  baseOf: (id: string) => Float32Array | undefined,
): GalleryLookup {
  return {
    learned,
    async search(global: Float32Array, k: number) {
      const hits = await inner.search(project(metric, global), k);
      return hits.map((h) => {
        const b = baseOf(h.id);
        return { ...h, similarity: b ? cosine(global, b) : -1 };
      });
    },
    localFeatures: (ids) => inner.localFeatures(ids),
  };
}

/** Enrolled rows of these owners and kind under the base model (base embeddings). */
async function baseRows(c: Container, engine: RecognitionEngine, owners: SearchPool, kind: Kind): Promise<IndexRow[]> {
  const rows = await poolRows(c, engine, owners, kind);
  return rows.map((x) => ({
    id: x.image_id,
    individualId: x.individual_id,
    kind,
    farmId: x.farm_id,
    treeId: x.tree_id,
    vector: bytesToVector(x.global),
  }));
}

/**
 * Galleries through the caller's adopted learned metric, when it has one for the kind. Each
 * projected index is a cache of the descriptors table under DATA_DIR/index/learned, rebuilt when
 * the version or the enrolled rows change.
 */
export function createLearnedGalleries(c: Container, engine: RecognitionEngine): LearnedGalleries {
  const cache = new Map<string, { index: OwnerIndex; base: Map<string, Float32Array> }>();
  const backbones = createBackboneGalleries(c, engine);
  return {
    /**
     * The caller's learned gallery over `owners`' pools, or null when the caller has adopted no
     * version for this kind (identify then uses the base gallery).
     */
    async gallery(caller: OwnerScope, owners: SearchPool, filter: IndexFilter, base: GalleryLookup): Promise<GalleryLookup | null> {
      const v = await adoptedVersion(c.db, caller, filter.kind, engine.model);
      if (!v) return null;
      if (v.backbone) return backbones.gallery(v, owners, filter, base);
      const metric = v.metric!;
      const ids = await poolImageIds(c, engine, owners, filter.kind);
      const modelVersion = `${engine.model.version}+${LEARNED_MODEL_NAME}-${v.version}`;
      const expected = { modelVersion, count: ids.length, idsChecksum: checksumIds(ids) };
      const key = `${caller.ownerId}:${filter.kind}:${[...owners].sort().join(',')}`;
      let hit = cache.get(key);
      if (!hit || hit.index.isStale(expected)) {
        // The base embeddings give the reported similarity; they are read once per change.
        const rows = await baseRows(c, engine, owners, filter.kind);
        const { index } = await openOwnerIndex({
          root: join(c.config.indexDir, 'learned'),
          ownerId: key,
          modelVersion,
          dim: metric.dimOut,
          expected,
          loadRows: async () => rows.map((r) => ({ ...r, vector: project(metric, r.vector) })),
        });
        hit = { index, base: new Map(rows.map((r) => [r.id, r.vector])) };
        cache.set(key, hit);
      }
      const { index: ix, base: vectors } = hit;
      const inner: GalleryLookup = {
        search: (vector: Float32Array, k: number): GalleryHit[] => ix.search(vector, k, filter),
        localFeatures: (imageIds) => base.localFeatures(imageIds),
      };
      return projectingGallery(inner, metric, { name: LEARNED_MODEL_NAME, version: String(v.version) }, (id) => vectors.get(id));
    },
  };
}

export type { LearnedGalleries };
