/**
 * Statements on `timeline_submissions`: a non-owner's event waiting outside the entity's hash
 * chain until the owner approves or rejects it, and the approval of a legacy pending event that
 * an older version wrote into the chain itself (`timeline_events`). What is allowed, the quotas
 * and the appending of an approved event are decided in api/src/services/timeline-submissions.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../ports/database.port.js';

/** One submission as the database holds it. */
export interface SubmissionRow {
  id: string;
  entity_type: string;
  entity_id: string;
  author_id: string;
  body: Record<string, unknown>;
  created_at: Date;
}

/** A new pending submission. */
export interface NewSubmission {
  entity_type: string;
  entity_id: string;
  owner_id: string;
  author_id: string;
  body: Record<string, unknown>;
}

const COLUMNS = 'id, entity_type, entity_id, author_id, body, created_at';
const row = (r: SubmissionRow): SubmissionRow => ({ ...r, created_at: new Date(r.created_at) });

export const timelineSubmissionsRepo = {
  /** Makes every submission to one entity take turns until the transaction `tx` ends. */
  async lockEntity(tx: Queryable, entityType: string, entityId: string): Promise<void> {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`submit:${entityType}/${entityId}`]);
  },

  /** How many submissions the author sent to the entity in the last 24 hours, and when the oldest of them was. */
  async recentByAuthor(
    q: Queryable,
    authorId: string,
    entityType: string,
    entityId: string,
  ): Promise<{ count: number; oldest: Date | null }> {
    const r = await q.query<{ n: number; oldest: Date | null }>(
      `select count(*)::int as n, min(created_at) as oldest from timeline_submissions
        where author_id = $1 and entity_type = $2 and entity_id = $3 and created_at > now() - interval '1 day'`,
      [authorId, entityType, entityId],
    );
    const { n, oldest } = r.rows[0]!;
    return { count: n, oldest: oldest === null ? null : new Date(oldest) };
  },

  /** What all authors together keep pending on the entity: the count and the bytes of the bodies as text. */
  async pendingLoad(q: Queryable, entityType: string, entityId: string): Promise<{ count: number; bytes: number }> {
    const r = await q.query<{ n: number; bytes: number }>(
      `select count(*)::int as n, coalesce(sum(octet_length(body::text)), 0)::bigint as bytes from timeline_submissions
        where entity_type = $1 and entity_id = $2 and status = 'pending'`,
      [entityType, entityId],
    );
    return { count: r.rows[0]!.n, bytes: Number(r.rows[0]!.bytes) };
  },

  /** Stores a pending submission under a fresh id. */
  async insert(q: Queryable, s: NewSubmission): Promise<SubmissionRow> {
    const r = await q.query<SubmissionRow>(
      `insert into timeline_submissions (id, entity_type, entity_id, owner_id, author_id, body)
       values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
      [randomUUID(), s.entity_type, s.entity_id, s.owner_id, s.author_id, s.body],
    );
    return row(r.rows[0]!);
  },

  /** The entity's pending submissions, oldest first: all of them, or only `authorId`'s. */
  async pending(q: Queryable, entityType: string, entityId: string, authorId?: string): Promise<SubmissionRow[]> {
    const r = await q.query<SubmissionRow>(
      `select ${COLUMNS} from timeline_submissions
        where entity_type = $1 and entity_id = $2 and status = 'pending' ${authorId === undefined ? '' : 'and author_id = $3'}
        order by created_at`,
      authorId === undefined ? [entityType, entityId] : [entityType, entityId, authorId],
    );
    return r.rows.map(row);
  },

  /** Marks a pending submission of the entity approved or rejected; null when there is no such pending one. */
  async decide(
    q: Queryable,
    d: { id: string; entityType: string; entityId: string; status: 'approved' | 'rejected' },
  ): Promise<SubmissionRow | null> {
    const r = await q.query<SubmissionRow>(
      `update timeline_submissions set status = $4, decided_at = now()
        where id = $1 and entity_type = $2 and entity_id = $3 and status = 'pending'
        returning ${COLUMNS}`,
      [d.id, d.entityType, d.entityId, d.status],
    );
    return r.rows[0] ? row(r.rows[0]) : null;
  },

  /**
   * Approves a legacy pending event already in the entity's chain: only its unhashed approval and
   * visibility change. Answers whether there was such an event.
   */
  async approveChained(q: Queryable, eventId: string, entityType: string, entityId: string): Promise<boolean> {
    const r = await q.query(
      `update timeline_events set approval = 'approved', visibility = 'public'
        where id = $1 and entity_type = $2 and entity_id = $3`,
      [eventId, entityType, entityId],
    );
    return r.affectedRows > 0;
  },
};

export type TimelineSubmissionsRepo = typeof timelineSubmissionsRepo;
