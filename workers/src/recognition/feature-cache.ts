/**
 * Stored local features kept in memory, least recently used out first, bounded by bytes.
 * Verification reads up to ~70 images' features per query; on a packing line the same gallery
 * is read again for every photo, and each read crossed to the database (in embedded mode, to
 * PGlite on the API's main thread). A row's features never change for a given image id and
 * model version, so the cache needs no invalidation beyond the key.
 */
export interface FeatureCache {
  /** Cached features of `ids`; `missing` lists the ids to fetch. */
  take(ids: readonly string[]): { found: Map<string, Uint8Array>; missing: string[] };
  put(id: string, bytes: Uint8Array): void;
  readonly bytes: number;
}

export function createFeatureCache(maxBytes: number): FeatureCache {
  const map = new Map<string, Uint8Array>();
  let bytes = 0;
  return {
    get bytes() {
      return bytes;
    },
    take(ids) {
      const found = new Map<string, Uint8Array>();
      const missing: string[] = [];
      for (const id of ids) {
        const hit = map.get(id);
        if (!hit) {
          missing.push(id);
          continue;
        }
        // Re-insert: Map order is the recency order.
        map.delete(id);
        map.set(id, hit);
        found.set(id, hit);
      }
      return { found, missing };
    },
    put(id, b) {
      if (b.byteLength > maxBytes || map.has(id)) return;
      map.set(id, b);
      bytes += b.byteLength;
      for (const [old, ob] of map) {
        if (bytes <= maxBytes) break;
        map.delete(old);
        bytes -= ob.byteLength;
      }
    },
  };
}
