import { scopeOfCaller, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Caller } from '../http/route.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { individualAccess } from '../../../shared/src/access/standing.js';
import type { identifyQueriesRepo } from '../../../shared/src/repos/identify-queries.repo.js';
import type { identifyVerdictsRepo } from '../../../shared/src/repos/identify-verdicts.repo.js';

export type VerdictLabel = 'correct' | 'wrong' | 'other' | 'unknown_ok';

/** The ports labelling uses. */
export interface VerdictDeps {
  db: Queryable;
  queries: Pick<typeof identifyQueriesRepo, 'ownKind'>;
  labels: Pick<typeof identifyVerdictsRepo, 'upsert'>;
  /** The access policy's answer for an individual (shared/src/access/standing.ts). */
  access: typeof individualAccess;
  /** The learning loop's check: enough new labels queue the owner's training. */
  queueLearning: (owner: OwnerScope, kind: Kind) => Promise<unknown>;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Ground-truth labels for identify queries, the data that re-fits the calibration. One label per
 * query and owner (a later label replaces it). A corrected id is kept only when it names one of
 * the caller's own individuals; otherwise it is dropped silently, never rejected.
 */
export function createVerdictService(deps: VerdictDeps) {
  const { db } = deps;
  return {
    async record(caller: Caller, input: { query_id: string; verdict: VerdictLabel; correct_id?: string; kind?: Kind }) {
      const scope = scopeOfCaller(caller);
      const kind = await deps.queries.ownKind(db, input.query_id, scope);
      // A kind's own verdict route labels only that kind's queries; another kind's query is as absent as a missing one.
      if (!kind || (input.kind && kind !== input.kind)) throw ERRORS.notFound();
      let correct: string | null = null;
      if (input.correct_id) {
        // Only an individual the caller may label answers with: its own (another's is as if unnamed).
        const { decision } = await deps.access(db, caller.account_id, input.correct_id, kind, 'owner');
        correct = decision === 'allow' ? input.correct_id : null;
      }
      await deps.labels.upsert(db, scope, { query_id: input.query_id, verdict: input.verdict, correct_id: correct });
      // The learning loop: enough new labels queue the owner's training (never fails the label).
      await deps.queueLearning(scope, kind).catch((err: unknown) => deps.logger.warn({ err }, 'learning loop check failed'));
      return { correct_id: correct };
    },
  };
}
