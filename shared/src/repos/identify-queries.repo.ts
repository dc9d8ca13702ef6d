/**
 * Statements on `identify_queries`: an answer as served, stored under its query id with the ranked
 * evidence it was decided from, so a later label (`identify_verdict`) can refer to it. A stored
 * answer is its account's own only (shared/src/access/policy.ts): every statement takes the
 * asker's `OwnerScope`, and another account's answer reads as missing.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export interface NewIdentifyQuery {
  id: string;
  kind: Kind;
  image_cids: readonly string[];
  /** The answer as the caller got it. */
  result: Record<string, unknown>;
  /** JSON text of the ranked evidence (kept from the caller). */
  evidence: string;
  /** The learned metric version it was searched with; null: none. */
  learned_version: number | null;
}

/** What a review decision reads of a stored answer. */
export interface StoredAnswer {
  image_cids: string[];
  result: { verdict?: string; candidates?: { individual_id: string }[] };
}

/** An answer still waiting for the owner's decision, as the review queue lists it. */
export interface PendingAnswer {
  id: string;
  kind: Kind;
  image_cids: string[];
  result: Record<string, unknown>;
  created_at: Date | string;
}

/**
 * The owner's answers still waiting for a decision: `uncertain`, or `no_match` that showed closest
 * individuals, with no label yet. Every decision writes an identify_verdicts row, so that row is
 * what takes a query off the queue.
 */
const PENDING = `from identify_queries q
  where q.owner_id = $1 and ($2::text is null or q.kind = $2)
    and (q.result->>'verdict' = 'uncertain'
         or (q.result->>'verdict' = 'no_match' and jsonb_typeof(q.result->'closest') = 'array' and jsonb_array_length(q.result->'closest') > 0))
    and not exists (select 1 from identify_verdicts v where v.query_id = q.id and v.owner_id = q.owner_id)`;

export const identifyQueriesRepo = {
  /** How many of the owner's answers (of one kind, when given) wait for a decision. */
  async pendingCount(db: Queryable, scope: OwnerScope, kind: Kind | null): Promise<number> {
    const r = await db.query<{ n: number }>(`select count(*)::int as n ${PENDING}`, [scope.ownerId, kind]);
    return r.rows[0]?.n ?? 0;
  },

  /** One page of the owner's answers waiting for a decision, newest first. */
  async pendingPage(db: Queryable, scope: OwnerScope, kind: Kind | null, limit: number, offset: number): Promise<PendingAnswer[]> {
    const r = await db.query<PendingAnswer>(
      `select q.id, q.kind, q.image_cids, q.result, q.created_at ${PENDING} order by q.created_at desc, q.id limit $3 offset $4`,
      [scope.ownerId, kind, limit, offset],
    );
    return r.rows;
  },

  /** The kind of the owner's own stored answer (null: missing, or another account's). */
  async ownKind(db: Queryable, id: string, scope: OwnerScope): Promise<Kind | null> {
    const r = await db.query<{ kind: Kind }>('select kind from identify_queries where id = $1 and owner_id = $2', [id, scope.ownerId]);
    return r.rows[0]?.kind ?? null;
  },

  /** The owner's own stored answer of a kind (another account's, or another kind's, is null like a missing one). */
  async ownAnswer(db: Queryable, id: string, scope: OwnerScope, kind: Kind): Promise<StoredAnswer | null> {
    const r = await db.query<StoredAnswer>(
      'select image_cids, result from identify_queries where id = $1 and owner_id = $2 and kind = $3',
      [id, scope.ownerId, kind],
    );
    return r.rows[0] ?? null;
  },

  /** Stores an answer of the scope's account; a retry of the same query id stores nothing twice. */
  async insert(db: Queryable, scope: OwnerScope, q: NewIdentifyQuery): Promise<void> {
    await db.query(
      `insert into identify_queries (id, owner_id, kind, image_cids, result, evidence, learned_version) values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing`,
      [q.id, scope.ownerId, q.kind, [...q.image_cids], q.result, q.evidence, q.learned_version],
    );
  },
};
