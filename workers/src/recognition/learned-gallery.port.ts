import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';
import type { IndexFilter } from '../index/owner-index.js';
import type { GalleryLookup } from '../vision/engine.js';

/**
 * What recognition asks of the learning loop: the gallery an owner's adopted learned version
 * searches. learn/gallery.ts implements it; recognition only holds this shape, so it never
 * imports the layer that trains.
 */
export interface LearnedGalleries {
  /** The caller's learned gallery over `owners`' pools, or null when the caller adopted no version for this kind. */
  gallery(caller: OwnerScope, owners: SearchPool, filter: IndexFilter, base: GalleryLookup): Promise<GalleryLookup | null>;
}
