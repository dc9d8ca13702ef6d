import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { describeOrRefuse } from './describe.js';
import type { IdentifyDeps } from './identify.handler.js';

/**
 * Public fruit lookup and point-of-sale scan (spec section 1 rules 3 and 5). The pool is every
 * fruit an owner made public, across owners, and nothing else: private fruit is left out of the
 * gallery itself, not filtered from the answer. Fruit scores barely separate right from wrong,
 * so the answer is always the short ranked list for a person to choose from (rule 5), never a
 * lone "match". Nothing is stored: no query row, no label, nothing about the caller.
 */
export function fruitLookupHandler(deps: IdentifyDeps): JobHandler<'fruit_lookup'> {
  return async (data) => {
    const query = await describeOrRefuse(deps.c, deps.engine, data.images[0]!, 'photo', 'fruit');
    const pub = await deps.c.db.query<{ id: string; owner_id: string }>(
      `select id, owner_id from individuals where kind = 'fruit' and visibility = 'public' and deleted_at is null`,
    );
    if (!pub.rows.length) return { candidates: [] };
    const owners = [...new Set(pub.rows.map((r) => r.owner_id))];
    const gallery = await deps.pools.gallery(owners, { kind: 'fruit', individualIds: new Set(pub.rows.map((r) => r.id)) });
    const out = await deps.engine.identify({ kind: 'fruit', queries: [query], gallery });
    return {
      candidates: out.ranked.slice(0, data.limit).map((x) => ({
        fruit_id: x.individualId,
        probability: Math.round(x.probability * 1e4) / 1e4,
        image_ids: x.imageIds.slice(0, 3),
      })),
    };
  };
}
