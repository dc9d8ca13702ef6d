import { DETECT_CONFIDENT } from '../../../shared/src/domain/animal-species.js';
import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { publicCalibration } from '../recognition/owner-calibration.js';
import { servingPooled } from '../recognition/pool-calibration.js';
import { describeOrRefuse } from './describe.js';
import type { IdentifyDeps } from './identify.handler.js';
import { publishedFruitPool } from '../../../shared/src/access/pool-owners.js';

/** How far the verdict vouches for one candidate: the top one of a `match`, one of an `uncertain`'s short list, or neither. */
export type PublicConfidence = 'match' | 'possible' | 'unlikely';

/**
 * Public fruit lookup and point-of-sale scan (spec section 1 rules 3 and 5). The pool is every
 * fruit an owner made public, across owners, and nothing else: private fruit is left out of the
 * gallery itself, not filtered from the answer. The verdict is the owner routes' decision
 * (engine.identify → decide) under the public calibration (owner-calibration.ts, publicCalibration),
 * and every candidate says how far that verdict vouches for it, so a weak one is never shown as
 * confident. A photo in which the detector confidently finds an animal is not a fruit: no candidates at all.
 * Nothing is stored: no query row, no label, nothing about the caller.
 */
export function fruitLookupHandler(deps: IdentifyDeps): JobHandler<'fruit_lookup'> {
  return async (data) => {
    // `report`: the detector looks for an animal even though fruit is described whole (as at enrolment).
    const query = await describeOrRefuse(deps.c, deps.engine, data.images[0]!, 'photo', 'fruit', { subject: { report: true } });
    // Only a confident sighting says "not a fruit": a faint one is as often a shadow on a peel,
    // and a close-up of a coat is often missed, so below it the verdict alone speaks.
    if (query.subject?.score != null && query.subject.score >= DETECT_CONFIDENT)
      return { verdict: 'no_match', not_fruit: true, seen: query.subject.label, match_vouched: false, candidates: [] };
    const pub = await publishedFruitPool(deps.c.db);
    // The owner routes' serving order, less the owner's own fit (no one owner's fit speaks for every
    // owner's published fruit): the pooled calibration where one serves a pool this size, else the kind's.
    const pooled = await servingPooled(deps.c, 'fruit', deps.engine.model.version, { species: null, individuals: pub.fruit.length });
    const cal = pooled ? { params: pooled.params, vouched: true } : publicCalibration(deps.engine.calibrationFor('fruit'));
    if (!pub.fruit.length) return { verdict: 'no_match', not_fruit: false, seen: null, match_vouched: cal.vouched, candidates: [] };
    const gallery = await deps.pools.gallery(pub.pool, { kind: 'fruit', individualIds: new Set(pub.fruit.map((r) => r.id)) });
    const out = await deps.engine.identify({ kind: 'fruit', queries: [query], gallery, calibration: cal.params });
    const shown = new Set(out.candidates.map((x) => x.individualId));
    return {
      verdict: out.verdict,
      not_fruit: false,
      seen: null,
      match_vouched: cal.vouched,
      candidates: out.ranked.slice(0, data.limit).map((x) => ({
        fruit_id: x.individualId,
        probability: Math.round(x.probability * 1e4) / 1e4,
        confidence: (!shown.has(x.individualId) ? 'unlikely' : out.verdict === 'match' ? 'match' : 'possible') satisfies PublicConfidence,
        image_ids: x.imageIds.slice(0, 3),
      })),
    };
  };
}
