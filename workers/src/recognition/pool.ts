import type { Container } from '../../../shared/src/container.js';
import type { GalleryHit, GalleryLookup, RecognitionEngine } from '../vision/engine.js';
import { checksumIds, openOwnerIndex, type IndexFilter, type IndexRow, type OwnerIndex } from '../index/owner-index.js';
import { descriptorsRepo } from '../../../shared/src/repos/descriptors.repo.js';
import { bytesToVector, toBytes } from './bytes.js';
import { createFeatureCache } from './feature-cache.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';

interface Cached {
  index: OwnerIndex;
  count: number;
  latest: string | null;
}

/**
 * Per-owner HNSW indexes, kept in memory and on disk under DATA_DIR/index. They are a cache of
 * the descriptors table: opened from disk when the files match the database (count and id
 * checksum), rebuilt from the database otherwise, and topped up with new rows before a search.
 */
export function createPools(c: Container, engine: RecognitionEngine) {
  const cache = new Map<string, Cached>();
  const model = engine.model;
  // Keyed by image id alone: this object serves one model version (a new one makes new pools).
  const features = createFeatureCache(c.config.FEATURE_CACHE_MB * 1024 * 1024);

  async function stamp(owner: string) {
    const row = await descriptorsRepo.ownerStamp(c.db, owner, model);
    return { count: row.n, latest: row.latest ? new Date(row.latest).toISOString() : null };
  }

  async function rows(owner: string, since?: string): Promise<IndexRow[]> {
    const r = await descriptorsRepo.ownerRows(c.db, owner, model, since);
    return r.map((x) => ({
      id: x.image_id,
      individualId: x.individual_id,
      kind: x.kind,
      farmId: x.farm_id,
      treeId: x.tree_id,
      vector: bytesToVector(x.global),
    }));
  }

  async function openFromDisk(owner: string): Promise<OwnerIndex> {
    const ids = await descriptorsRepo.ownerImageIds(c.db, owner, model);
    const { index, rebuilt } = await openOwnerIndex({
      root: c.config.indexDir,
      ownerId: owner,
      modelVersion: model.version,
      dim: engine.dim,
      expected: { modelVersion: model.version, count: ids.length, idsChecksum: checksumIds(ids) },
      loadRows: () => rows(owner),
    });
    if (rebuilt) c.logger.info({ owner, size: index.size }, 'index rebuilt from the database');
    return index;
  }

  /** The owner's index, current with the database. */
  async function indexFor(owner: string): Promise<OwnerIndex> {
    const now = await stamp(owner);
    const hit = cache.get(owner);
    if (hit && hit.count === now.count && hit.latest === now.latest) return hit.index;
    if (hit && hit.latest && now.count > hit.count) {
      hit.index.add(await rows(owner, hit.latest));
      // Rows committed out of order can slip past the `created_at >` delta; the count tells.
      if (hit.index.size === now.count) {
        hit.index.save();
        cache.set(owner, { index: hit.index, ...now });
        c.metrics.indexSize(owner, hit.index.size);
        return hit.index;
      }
    }
    const index = await openFromDisk(owner);
    cache.set(owner, { index, ...now });
    c.metrics.indexSize(owner, index.size);
    return index;
  }

  async function localFeatures(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    const { found, missing } = features.take(ids);
    if (!missing.length) return found;
    for (const x of await descriptorsRepo.localFeatures(c.db, missing, model)) {
      if (!x.local) continue;
      const b = toBytes(x.local);
      features.put(x.image_id, b);
      found.set(x.image_id, b);
    }
    return found;
  }

  return {
    indexFor,
    /** Forget cached indexes (after a re-embed), so the next search reopens them. */
    reset: () => cache.clear(),
    /** A gallery over the pools of `owners` (the caller, plus owners who granted access), narrowed by `filter`. */
    async gallery(owners: SearchPool, filter: IndexFilter): Promise<GalleryLookup> {
      const indexes = await Promise.all(owners.map(indexFor));
      return {
        search(global: Float32Array, k: number): GalleryHit[] {
          return indexes
            .flatMap((ix) => ix.search(global, k, filter))
            .sort((a, b) => b.similarity - a.similarity)
            .slice(0, k);
        },
        localFeatures,
      };
    },
  };
}

export type Pools = ReturnType<typeof createPools>;
