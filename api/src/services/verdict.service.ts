import { randomUUID } from 'node:crypto';
import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Caller } from '../http/route.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { maybeQueueLearning } from '../../../shared/src/repos/learning-runs.js';
import { individualAccess } from '../../../shared/src/access/standing.js';

export type VerdictLabel = 'correct' | 'wrong' | 'other' | 'unknown_ok';

/**
 * Ground-truth labels for identify queries, the data that re-fits the calibration. One label per
 * query and owner (a later label replaces it). A corrected id is kept only when it names one of
 * the caller's own individuals; otherwise it is dropped silently, never rejected.
 */
export function createVerdictService(c: Container) {
  return {
    async record(caller: Caller, input: { query_id: string; verdict: VerdictLabel; correct_id?: string; kind?: Kind }) {
      const q = await c.db.query<{ kind: string }>('select kind from identify_queries where id = $1 and owner_id = $2', [
        input.query_id,
        caller.account_id,
      ]);
      // A kind's own verdict route labels only that kind's queries; another kind's query is as absent as a missing one.
      if (!q.rows[0] || (input.kind && q.rows[0].kind !== input.kind)) throw ERRORS.notFound();
      let correct: string | null = null;
      if (input.correct_id) {
        // Only an individual the caller may label answers with: its own (another's is as if unnamed).
        const { decision } = await individualAccess(c.db, caller.account_id, input.correct_id, q.rows[0].kind as Kind, 'owner');
        correct = decision === 'allow' ? input.correct_id : null;
      }
      await c.db.query(
        `insert into identify_verdicts (id, query_id, owner_id, verdict, correct_id) values ($1, $2, $3, $4, $5)
         on conflict (query_id, owner_id) do update set verdict = excluded.verdict, correct_id = excluded.correct_id, created_at = now()`,
        [randomUUID(), input.query_id, caller.account_id, input.verdict, correct],
      );
      // The learning loop: enough new labels queue the owner's training (never fails the label).
      await maybeQueueLearning(c, caller.account_id, q.rows[0].kind as Kind).catch((err: unknown) =>
        c.logger.warn({ err }, 'learning loop check failed'),
      );
      return { correct_id: correct };
    },
  };
}
