/**
 * The enrolled photos of some owners' pools for one kind, under the engine's current model, as
 * both learned galleries read them: only their ids (cheap, to tell whether a cached index is
 * stale) or whole rows (to rebuild one).
 */
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Box } from '../vision/detector.js';
import type { RecognitionEngine } from '../vision/engine.js';

const POOL = `from descriptors d join images i on i.id = d.image_id join individuals ind on ind.id = i.individual_id
  where d.owner_id = any($1::uuid[]) and ind.kind = $2 and d.model = $3 and d.model_version = $4 and ind.deleted_at is null`;

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

export async function poolImageIds(c: Container, engine: RecognitionEngine, owners: readonly string[], kind: Kind): Promise<string[]> {
  const r = await c.db.query<{ image_id: string }>(`select d.image_id ${POOL}`, [owners, kind, engine.model.name, engine.model.version]);
  return r.rows.map((x) => x.image_id);
}

/** Whole rows, ordered by individual then image (so a fixed photo per individual can be held out). */
export async function poolRows(c: Container, engine: RecognitionEngine, owners: readonly string[], kind: Kind): Promise<PoolRow[]> {
  const r = await c.db.query<PoolRow>(
    `select d.image_id, i.individual_id, ind.farm_id, ind.tree_id, i.cid, d.global, d.subject ${POOL} order by i.individual_id, d.image_id`,
    [owners, kind, engine.model.name, engine.model.version],
  );
  return r.rows;
}
