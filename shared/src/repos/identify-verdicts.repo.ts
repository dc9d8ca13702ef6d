/**
 * The labels owners put on identify answers (`identify_verdicts`), read with the query they label
 * (`identify_queries`): the training and calibration data of the learning loop.
 *
 * Each read is scoped as its caller learns: a kind's every label (the operator's refit), or one
 * owner's labels on their own queries (never another account's). A label is its account's own
 * (shared/src/access/policy.ts): writing one and reading an owner's take that owner's `OwnerScope`.
 */
import { randomUUID } from 'node:crypto';
import type { OwnerScope } from '../access/owner-scope.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export type Verdict = 'correct' | 'wrong' | 'other' | 'unknown_ok';

/** A label with the ranked evidence its query stored (best first; null for an answer without). */
export interface LabelWithEvidence<E = Record<string, number>> {
  verdict: Verdict;
  correct_id: string | null;
  evidence: { individual_id: string; evidence: E }[] | null;
}

/** A label with the query's photos and the individual its answer put first. */
export interface LabelWithPhotos {
  verdict: Verdict;
  correct_id: string | null;
  image_cids: string[];
  /** The answer's match, else its best-ranked candidate; null for an answer without. */
  top: string | null;
}

export const identifyVerdictsRepo = {
  /** Stores the scope's account's label on a query; a later label of the same owner replaces it (and its time). */
  async upsert(db: Queryable, scope: OwnerScope, l: { query_id: string; verdict: Verdict; correct_id: string | null }): Promise<void> {
    await db.query(
      `insert into identify_verdicts (id, query_id, owner_id, verdict, correct_id) values ($1, $2, $3, $4, $5)
       on conflict (query_id, owner_id) do update set verdict = excluded.verdict, correct_id = excluded.correct_id, created_at = now()`,
      [randomUUID(), l.query_id, scope.ownerId, l.verdict, l.correct_id],
    );
  },

  /** Every label on queries of a kind, from every owner (the kind's refit, not an account's read). */
  async labelsOfKind<E = Record<string, number>>(db: Queryable, kind: Kind): Promise<LabelWithEvidence<E>[]> {
    const r = await db.query<LabelWithEvidence<E>>(
      `select v.verdict, v.correct_id, q.evidence from identify_verdicts v join identify_queries q on q.id = v.query_id where q.kind = $1`,
      [kind],
    );
    return r.rows;
  },

  /** An owner's labels on their own queries of a kind, with the query photos, oldest first. */
  async ownerLabelsWithPhotos(db: Queryable, scope: OwnerScope, kind: Kind): Promise<LabelWithPhotos[]> {
    const r = await db.query<LabelWithPhotos>(
      `select v.verdict, v.correct_id, q.image_cids, coalesce(q.result->'match'->>'individual_id', q.evidence->0->>'individual_id') as top
       from identify_verdicts v join identify_queries q on q.id = v.query_id
      where v.owner_id = $1 and q.owner_id = $1 and q.kind = $2 order by v.created_at, v.id`,
      [scope.ownerId, kind],
    );
    return r.rows;
  },

  /**
   * An owner's labels on their own queries of a kind answered by one pipeline: the engine
   * version, and the learned version that searched (null: the base model alone).
   */
  async ownerLabelsOfPipeline<E = Record<string, number>>(
    db: Queryable,
    scope: OwnerScope,
    kind: Kind,
    engineVersion: string,
    learnedVersion: number | null,
  ): Promise<LabelWithEvidence<E>[]> {
    const r = await db.query<LabelWithEvidence<E>>(
      `select v.verdict, v.correct_id, q.evidence from identify_verdicts v join identify_queries q on q.id = v.query_id
      where v.owner_id = $1 and q.owner_id = $1 and q.kind = $2 and q.result->'model'->>'version' = $3
        and coalesce(q.learned_version, -1) = $4`,
      [scope.ownerId, kind, engineVersion, learnedVersion ?? -1],
    );
    return r.rows;
  },
};
