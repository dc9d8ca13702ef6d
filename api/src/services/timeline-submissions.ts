/**
 * Contributor events (decided with the evidence area): a non-owner's POST .../event is NOT
 * appended to the entity's hash chain. It waits in `timeline_submissions`, visible to the owner
 * and its author only, until the owner approves it (then the owner's action appends it to the
 * chain, with the original author and the approval inside the hashed body under
 * `_contribution`) or rejects it (it never enters the chain). So every event in a chain, and in
 * any anchored root, is owner-written or owner-approved.
 */
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { appendChainEvent, type StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { randomUUID } from 'node:crypto';

/** Largest event body, as UTF-8 JSON. Timelines are read whole; 60 huge events once took 1.2 GB to read. */
export const EVENT_BODY_MAX_BYTES = 16 * 1024;
/** Pending submissions one account may send to one entity in 24 hours. */
export const SUBMISSIONS_PER_AUTHOR_PER_DAY = 20;
/** Key of the hashed body that names a contribution's author and approval; clients may not send it. */
export const CONTRIBUTION_KEY = '_contribution';

/** One pending submission as its owner or author sees it: no seq, prev_hash or leaf_hash (not in any chain). */
export interface SubmissionView {
  event_id: string;
  entity_type: string;
  entity_id: string;
  body: Record<string, unknown>;
  author_role: 'contributor';
  created_at: string;
  visibility: 'private';
  approval: 'pending';
}

interface Row {
  id: string;
  entity_type: string;
  entity_id: string;
  author_id: string;
  body: Record<string, unknown>;
  created_at: Date | string;
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

function view(r: Row, pathId: string): SubmissionView {
  return {
    event_id: r.id,
    entity_type: r.entity_type,
    entity_id: pathId,
    body: r.body,
    author_role: 'contributor',
    created_at: iso(r.created_at),
    visibility: 'private',
    approval: 'pending',
  };
}

/** 422 when a body is over the size cap or uses the reserved key. */
export function checkEventBody(body: Record<string, unknown>): void {
  const bytes = Buffer.byteLength(JSON.stringify(body), 'utf8');
  if (bytes > EVENT_BODY_MAX_BYTES)
    throw new AppError(422, 'event_too_large', { field: 'body', max_kb: EVENT_BODY_MAX_BYTES / 1024, bytes });
  if (CONTRIBUTION_KEY in body) throw new AppError(422, 'event_reserved_key', { field: 'body', key: CONTRIBUTION_KEY });
}

/** What all non-owners together may keep pending on one entity (TIMELINE_PENDING_MAX_*). */
export interface EntityQuota {
  maxEvents: number;
  maxBytes: number;
}

/** A suggestion only: pending events leave the cap when the owner decides, which has no schedule. */
const ENTITY_QUOTA_RETRY_S = 3600;

/**
 * Store a contributor's event as pending; 429 with Retry-After past the per-author daily count,
 * or when the pending events of all non-owners together would pass the entity's cap (count or
 * bytes): many fresh accounts cannot together grow an owner's timeline without bound.
 */
export async function submit(
  tx: Queryable,
  entity: ResolvedEntity,
  authorId: string,
  body: Record<string, unknown>,
  pathId: string,
  quota: EntityQuota,
): Promise<SubmissionView> {
  // All submissions to one entity take turns, so neither count below can be raced past.
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`submit:${entity.entity_type}/${entity.entity_id}`]);
  const recent = await tx.query<{ n: number; oldest: Date | null }>(
    `select count(*)::int as n, min(created_at) as oldest from timeline_submissions
      where author_id = $1 and entity_type = $2 and entity_id = $3 and created_at > now() - interval '1 day'`,
    [authorId, entity.entity_type, entity.entity_id],
  );
  const { n, oldest } = recent.rows[0]!;
  if (n >= SUBMISSIONS_PER_AUTHOR_PER_DAY) {
    const freeAt = new Date(oldest!).getTime() + 86_400_000;
    const retry = Math.max(1, Math.ceil((freeAt - Date.now()) / 1000));
    throw new AppError(
      429,
      'event_quota_exceeded',
      { max: SUBMISSIONS_PER_AUTHOR_PER_DAY, retry_after: retry },
      { 'Retry-After': String(retry) },
    );
  }
  const held = await tx.query<{ n: number; bytes: number }>(
    `select count(*)::int as n, coalesce(sum(octet_length(body::text)), 0)::bigint as bytes from timeline_submissions
      where entity_type = $1 and entity_id = $2 and status = 'pending'`,
    [entity.entity_type, entity.entity_id],
  );
  const size = Buffer.byteLength(JSON.stringify(body), 'utf8');
  if (held.rows[0]!.n + 1 > quota.maxEvents || Number(held.rows[0]!.bytes) + size > quota.maxBytes) {
    throw new AppError(
      429,
      'event_entity_quota_exceeded',
      { max_events: quota.maxEvents, max_kb: Math.floor(quota.maxBytes / 1024), retry_after: ENTITY_QUOTA_RETRY_S },
      { 'Retry-After': String(ENTITY_QUOTA_RETRY_S) },
    );
  }
  const r = await tx.query<Row>(
    `insert into timeline_submissions (id, entity_type, entity_id, owner_id, author_id, body)
     values ($1, $2, $3, $4, $5, $6) returning id, entity_type, entity_id, author_id, body, created_at`,
    [randomUUID(), entity.entity_type, entity.entity_id, entity.owner_id, authorId, body],
  );
  return view(r.rows[0]!, pathId);
}

/** Pending submissions the caller may see: all of them for the owner, their own for an author. */
export async function pendingFor(
  db: Queryable,
  entity: ResolvedEntity,
  callerId: string | null,
  pathId: string,
): Promise<SubmissionView[]> {
  if (!callerId) return [];
  const owner = callerId === entity.owner_id;
  const r = await db.query<Row>(
    `select id, entity_type, entity_id, author_id, body, created_at from timeline_submissions
      where entity_type = $1 and entity_id = $2 and status = 'pending' ${owner ? '' : 'and author_id = $3'} order by created_at`,
    owner ? [entity.entity_type, entity.entity_id] : [entity.entity_type, entity.entity_id, callerId],
  );
  return r.rows.map((row) => view(row, pathId));
}

/**
 * Owner's decision on a pending submission. Approve: appended to the chain now, by the owner's
 * action, its body carrying `_contribution` {author_id, submitted_at, approved_by, approved_at};
 * reject: marked and never shown again. Null when there is no such pending submission.
 */
export async function decide(
  tx: Queryable,
  entity: ResolvedEntity,
  eventId: string,
  approve: boolean,
): Promise<StoredEvent | 'rejected' | null> {
  const r = await tx.query<Row>(
    `update timeline_submissions set status = $4, decided_at = now()
      where id = $1 and entity_type = $2 and entity_id = $3 and status = 'pending'
      returning id, entity_type, entity_id, author_id, body, created_at`,
    [eventId, entity.entity_type, entity.entity_id, approve ? 'approved' : 'rejected'],
  );
  const row = r.rows[0];
  if (!row) return null;
  if (!approve) return 'rejected';
  const approvedAt = new Date();
  return appendChainEvent(tx, {
    id: row.id,
    entity_type: entity.entity_type,
    entity_id: entity.entity_id,
    owner_id: entity.owner_id,
    author_id: row.author_id,
    author_role: 'contributor',
    approved: true,
    created_at: approvedAt,
    body: {
      ...row.body,
      [CONTRIBUTION_KEY]: {
        author_id: row.author_id,
        submitted_at: iso(row.created_at),
        approved_by: entity.owner_id,
        approved_at: approvedAt.toISOString(),
      },
    },
  });
}
