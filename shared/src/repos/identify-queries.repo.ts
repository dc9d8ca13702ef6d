/**
 * Statements on `identify_queries`: an answer as served, stored under its query id with the ranked
 * evidence it was decided from, so a later label (`identify_verdict`) can refer to it.
 */
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export interface NewIdentifyQuery {
  id: string;
  owner_id: string;
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

export const identifyQueriesRepo = {
  /** The kind of the owner's own stored answer (null: missing, or another account's). */
  async ownKind(db: Queryable, id: string, ownerId: string): Promise<Kind | null> {
    const r = await db.query<{ kind: Kind }>('select kind from identify_queries where id = $1 and owner_id = $2', [id, ownerId]);
    return r.rows[0]?.kind ?? null;
  },

  /** The owner's own stored answer of a kind (another account's, or another kind's, is null like a missing one). */
  async ownAnswer(db: Queryable, id: string, ownerId: string, kind: Kind): Promise<StoredAnswer | null> {
    const r = await db.query<StoredAnswer>(
      'select image_cids, result from identify_queries where id = $1 and owner_id = $2 and kind = $3',
      [id, ownerId, kind],
    );
    return r.rows[0] ?? null;
  },

  /** Stores an answer; a retry of the same query id stores nothing twice. */
  async insert(db: Queryable, q: NewIdentifyQuery): Promise<void> {
    await db.query(
      `insert into identify_queries (id, owner_id, kind, image_cids, result, evidence, learned_version) values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing`,
      [q.id, q.owner_id, q.kind, [...q.image_cids], q.result, q.evidence, q.learned_version],
    );
  },
};
