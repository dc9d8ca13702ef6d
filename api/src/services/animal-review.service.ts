import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Caller } from '../http/route.js';
import { animalIdOr404 } from './animals.service.js';
import type { IndividualsService } from './individuals.service.js';
import type { JobOutcome } from './jobs.service.js';
import type { createVerdictService } from './verdict.service.js';

/**
 * Review decisions on an animal identify answer (issue 24), each one request: "this one" (label
 * and keep the photo with the animal), "none of these" (the query's photos go into a new
 * enrolment). Merging two individuals that turned out to be one, and undoing it, is
 * animal-merge.service.ts.
 */
export function createAnimalReviewService(
  c: Container,
  deps: { individuals: IndividualsService; verdicts: ReturnType<typeof createVerdictService> },
) {
  const { db } = c;

  /** The caller's own animal query: its stored photos and the verdict's top candidate. */
  async function query(caller: Caller, queryId: string) {
    const r = await db.query<{ image_cids: string[]; result: { verdict?: string; candidates?: { individual_id: string }[] } }>(
      `select image_cids, result from identify_queries where id = $1 and owner_id = $2 and kind = 'animal'`,
      [queryId, caller.account_id],
    );
    if (!r.rows[0]) throw ERRORS.notFound();
    return r.rows[0];
  }

  return {
    query,

    /**
     * "This one": the label (correct when it was the top candidate, other otherwise) and the query
     * photo added to the animal; its chain records the confirmed identification.
     */
    async confirm(caller: Caller, queryId: string, ref: string): Promise<{ outcome: JobOutcome; id: string; verdict: string }> {
      const q = await query(caller, queryId);
      const id = animalIdOr404(ref);
      await deps.individuals.owned(caller, id, 'animal');
      const verdict = q.result.candidates?.[0]?.individual_id === id ? 'correct' : 'other';
      await deps.verdicts.record(caller, { query_id: queryId, verdict, correct_id: id, kind: 'animal' });
      return { outcome: await deps.individuals.addQueryPhotos(caller, 'animal', id, q.image_cids, queryId), id, verdict };
    },

    /** After a new animal was enrolled from a query's photos: the query is labelled with it. */
    async labelNew(caller: Caller, queryId: string, verdict: string | undefined, newId: string) {
      await deps.verdicts.record(caller, {
        query_id: queryId,
        verdict: verdict === 'no_match' ? 'unknown_ok' : 'other',
        correct_id: newId,
        kind: 'animal',
      });
    },
  };
}

export type AnimalReviewService = ReturnType<typeof createAnimalReviewService>;
