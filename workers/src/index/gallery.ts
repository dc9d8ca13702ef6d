/**
 * Adapts an owner's HNSW index plus stored local features to the engine's
 * `GalleryLookup`, scoped by kind / farm / tree.
 */
import type { GalleryHit, GalleryLookup } from '../vision/engine.js';
import type { IndexFilter, OwnerIndex } from './owner-index.js';

/** Where packed local features come from (the database in the service, a Map in benchmarks). */
export type LocalFeatureSource = (ids: readonly string[]) => Promise<Map<string, Uint8Array>> | Map<string, Uint8Array>;

export class IndexedGallery implements GalleryLookup {
  constructor(
    private readonly index: OwnerIndex,
    private readonly filter: IndexFilter,
    private readonly source: LocalFeatureSource,
    /** Image ids hidden from search (e.g. leave-one-out calibration). */
    private readonly exclude: ReadonlySet<string> = new Set(),
  ) {}

  search(global: Float32Array, k: number): GalleryHit[] {
    if (this.exclude.size === 0) return this.index.search(global, k, this.filter);
    return this.index
      .search(global, k + this.exclude.size, this.filter)
      .filter((h) => !this.exclude.has(h.id))
      .slice(0, k);
  }

  localFeatures(ids: readonly string[]): Promise<Map<string, Uint8Array>> | Map<string, Uint8Array> {
    return this.source(ids);
  }

  /** The same gallery with more ids hidden, or narrowed to some individuals. */
  narrowed(opts: { exclude?: Iterable<string>; individualIds?: ReadonlySet<string> }): IndexedGallery {
    const exclude = new Set([...this.exclude, ...(opts.exclude ?? [])]);
    const filter = opts.individualIds ? { ...this.filter, individualIds: opts.individualIds } : this.filter;
    return new IndexedGallery(this.index, filter, this.source, exclude);
  }
}

/** A LocalFeatureSource over an in-memory map. */
export function mapSource(map: ReadonlyMap<string, Uint8Array>): LocalFeatureSource {
  return (ids) => new Map(ids.flatMap((id) => (map.has(id) ? [[id, map.get(id)!] as [string, Uint8Array]] : [])));
}
