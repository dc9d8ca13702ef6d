/**
 * The enrolled photos of some owners' pools for one kind, under the engine's current model, as
 * both learned galleries read them: only their ids (cheap, to tell whether a cached index is
 * stale) or whole rows (to rebuild one).
 */
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Box } from '../vision/detector.js';
import type { RecognitionEngine } from '../vision/engine.js';
import { descriptorsRepo } from '../../../shared/src/repos/descriptors.repo.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';

export interface PoolRow {
  image_id: string;
  individual_id: string;
  farm_id: string | null;
  tree_id: string | null;
  cid: string;
  /** The base model's global embedding, as stored. */
  global: Uint8Array;
  /** The animal box the descriptor was made from, if any. */
  subject: { box: Box } | null;
}

export async function poolImageIds(c: Container, engine: RecognitionEngine, owners: SearchPool, kind: Kind): Promise<string[]> {
  return descriptorsRepo.poolImageIds(c.db, owners, kind, engine.model);
}

/** Whole rows, individuals as enrolled and each one's photos oldest first (so the same photos are held out on every run). */
export async function poolRows(c: Container, engine: RecognitionEngine, owners: SearchPool, kind: Kind): Promise<PoolRow[]> {
  return descriptorsRepo.poolRows(c.db, owners, kind, engine.model);
}
