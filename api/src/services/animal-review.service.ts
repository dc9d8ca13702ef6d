import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { identifyQueriesRepo } from '../../../shared/src/repos/identify-queries.repo.js';
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
/** The ports the review decisions use. */
export interface AnimalReviewDeps {
  db: Queryable;
  answers: Pick<typeof identifyQueriesRepo, 'ownAnswer'>;
  individuals: Pick<IndividualsService, 'owned' | 'addQueryPhotos'>;
  verdicts: Pick<ReturnType<typeof createVerdictService>, 'record'>;
}

export function createAnimalReviewService(deps: AnimalReviewDeps) {
  const { db } = deps;

  /** The caller's own animal query: its stored photos and the verdict's top candidate. */
  async function query(caller: Caller, queryId: string) {
    const answer = await deps.answers.ownAnswer(db, queryId, scopeOfCaller(caller), 'animal');
    if (!answer) throw ERRORS.notFound();
    return answer;
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
