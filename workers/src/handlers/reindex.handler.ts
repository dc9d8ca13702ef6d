import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { reembedMissing, type ReembedDeps } from '../recognition/reembed.js';

/** The reindex job: recognition/reembed.ts, for one owner or all. */
export function reindexHandler(deps: ReembedDeps): JobHandler<'reindex'> {
  return async (data) => reembedMissing(deps, data.owner_id);
}
