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
import type { appendChainEvent, StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { SubmissionRow, TimelineSubmissionsRepo } from '../../../shared/src/repos/timeline-submissions.repo.js';

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

const iso = (d: Date) => d.toISOString();

function view(r: SubmissionRow, pathId: string): SubmissionView {
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

/** What contributor submissions use: their repository, the chain an approval appends to, and the entity cap. */
export interface SubmissionsDeps {
  submissions: Pick<TimelineSubmissionsRepo, 'lockEntity' | 'recentByAuthor' | 'pendingLoad' | 'insert' | 'pending' | 'decide'>;
  /** chain-store's appendChainEvent: an approved submission enters the chain by the owner's action. */
  appendChainEvent: typeof appendChainEvent;
  /** TIMELINE_PENDING_MAX_PER_ENTITY and TIMELINE_PENDING_MAX_BYTES_PER_ENTITY. */
  quota: EntityQuota;
}

/** Contributor submissions: store one as pending, list those a caller may see, and the owner's decision. */
export function createSubmissions({ submissions, appendChainEvent, quota }: SubmissionsDeps) {
  return {
    /**
     * Store a contributor's event as pending; 429 with Retry-After past the per-author daily count,
     * or when the pending events of all non-owners together would pass the entity's cap (count or
     * bytes): many fresh accounts cannot together grow an owner's timeline without bound.
     */
    async submit(
      tx: Queryable,
      entity: ResolvedEntity,
      authorId: string,
      body: Record<string, unknown>,
      pathId: string,
    ): Promise<SubmissionView> {
      // All submissions to one entity take turns, so neither count below can be raced past.
      await submissions.lockEntity(tx, entity.entity_type, entity.entity_id);
      const recent = await submissions.recentByAuthor(tx, authorId, entity.entity_type, entity.entity_id);
      if (recent.count >= SUBMISSIONS_PER_AUTHOR_PER_DAY) {
        const freeAt = recent.oldest!.getTime() + 86_400_000;
        const retry = Math.max(1, Math.ceil((freeAt - Date.now()) / 1000));
        throw new AppError(
          429,
          'event_quota_exceeded',
          { max: SUBMISSIONS_PER_AUTHOR_PER_DAY, retry_after: retry },
          { 'Retry-After': String(retry) },
        );
      }
      const held = await submissions.pendingLoad(tx, entity.entity_type, entity.entity_id);
      const size = Buffer.byteLength(JSON.stringify(body), 'utf8');
      if (held.count + 1 > quota.maxEvents || held.bytes + size > quota.maxBytes) {
        throw new AppError(
          429,
          'event_entity_quota_exceeded',
          { max_events: quota.maxEvents, max_kb: Math.floor(quota.maxBytes / 1024), retry_after: ENTITY_QUOTA_RETRY_S },
          { 'Retry-After': String(ENTITY_QUOTA_RETRY_S) },
        );
      }
      const row = await submissions.insert(tx, {
        entity_type: entity.entity_type,
        entity_id: entity.entity_id,
        owner_id: entity.owner_id,
        author_id: authorId,
        body,
      });
      return view(row, pathId);
    },

    /** Pending submissions the caller may see: all of them for the owner, their own for an author. */
    async pendingFor(db: Queryable, entity: ResolvedEntity, callerId: string | null, pathId: string): Promise<SubmissionView[]> {
      if (!callerId) return [];
      const owner = callerId === entity.owner_id;
      const rows = await submissions.pending(db, entity.entity_type, entity.entity_id, owner ? undefined : callerId);
      return rows.map((row) => view(row, pathId));
    },

    /**
     * Owner's decision on a pending submission. Approve: appended to the chain now, by the owner's
     * action, its body carrying `_contribution` {author_id, submitted_at, approved_by, approved_at};
     * reject: marked and never shown again. Null when there is no such pending submission.
     */
    async decide(tx: Queryable, entity: ResolvedEntity, eventId: string, approve: boolean): Promise<StoredEvent | 'rejected' | null> {
      const row = await submissions.decide(tx, {
        id: eventId,
        entityType: entity.entity_type,
        entityId: entity.entity_id,
        status: approve ? 'approved' : 'rejected',
      });
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
    },
  };
}

export type Submissions = ReturnType<typeof createSubmissions>;
