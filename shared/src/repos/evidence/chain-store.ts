/**
 * The database side of per-entity hash chains: appending an event, and reading a chain back as
 * the evidence library's {@link ChainEvent}s. Hashing is the library's ({@link eventLeafHash});
 * this module only decides seq and prev_hash under a lock.
 *
 * Appends are serialised by the database, not by the process: a transaction-scoped advisory lock
 * on the entity makes concurrent writers (several API processes, several workers) take turns,
 * and the unique (entity_type, entity_id, seq) constraint is the backstop that makes a fork
 * impossible even if the lock were skipped.
 */
import { randomUUID } from 'node:crypto';
import { GENESIS_PREV_HASH, eventLeafHash, type ChainEvent } from '../../evidence/chain.js';
import { canonicalTimestamp } from '../../evidence/bytes.js';
import type { Queryable } from '../../ports/database.port.js';

/** Entity kinds that carry a timeline. */
export const ENTITY_TYPES = ['tree', 'fruit', 'animal', 'farm'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** Who wrote an event, relative to the entity's owner. */
export type AuthorRole = 'owner' | 'contributor';

/** One stored own-chain event: the hashed part plus the unhashed workflow fields. */
export interface StoredEvent extends ChainEvent {
  readonly event_id: string;
  readonly owner_id: string;
  readonly author_id: string | null;
  readonly visibility: 'public' | 'private';
  readonly approval: 'approved' | 'pending';
}

/** What {@link appendChainEvent} needs. */
export interface AppendInput {
  entity_type: EntityType;
  entity_id: string;
  owner_id: string;
  author_id: string | null;
  author_role: AuthorRole;
  body: Record<string, unknown>;
  /** Defaults to now. */
  created_at?: Date;
  /** Event id; defaults to a fresh UUID (an approved contribution keeps its submission's id). */
  id?: string;
  /** True when the owner wrote or approved it: public and approved whatever the author's role. */
  approved?: boolean;
}

const COLUMNS = `id, entity_type, entity_id, seq, owner_id, author_id, author_role, visibility, approval, body, created_at, prev_hash, leaf_hash`;

interface EventRow {
  id: string;
  entity_type: string;
  entity_id: string;
  seq: number;
  owner_id: string;
  author_id: string | null;
  author_role: string | null;
  visibility: 'public' | 'private';
  approval: 'approved' | 'pending';
  body: Record<string, unknown>;
  created_at: Date | string;
  prev_hash: string;
  leaf_hash: string;
}

function fromRow(r: EventRow): StoredEvent {
  return {
    event_id: r.id,
    entity_type: r.entity_type,
    entity_id: r.entity_id,
    seq: r.seq,
    body: r.body,
    ...(r.author_role ? { author_role: r.author_role } : {}),
    created_at: canonicalTimestamp(r.created_at instanceof Date ? r.created_at : new Date(r.created_at)),
    prev_hash: r.prev_hash,
    leaf_hash: r.leaf_hash,
    owner_id: r.owner_id,
    author_id: r.author_id,
    visibility: r.visibility,
    approval: r.approval,
  };
}

/** Takes the entity's append lock for the rest of the transaction `tx`. */
export async function lockChain(tx: Queryable, entityType: string, entityId: string): Promise<void> {
  // hashtext collisions between two entities only make them take turns; they never share a chain.
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`chain:${entityType}/${entityId}`]);
}

/**
 * Appends one event to the entity's chain. Must run inside a transaction (`tx`): the lock is
 * held until it commits. The author decides visibility: the owner's events are public and
 * approved, anyone else's private and pending (spec section 3).
 */
export async function appendChainEvent(tx: Queryable, input: AppendInput): Promise<StoredEvent> {
  await lockChain(tx, input.entity_type, input.entity_id);
  const last = await tx.query<{ seq: number; leaf_hash: string }>(
    'select seq, leaf_hash from timeline_events where entity_type = $1 and entity_id = $2 order by seq desc limit 1',
    [input.entity_type, input.entity_id],
  );
  const prev = last.rows[0];
  const unhashed = {
    entity_type: input.entity_type,
    entity_id: input.entity_id,
    seq: prev ? prev.seq + 1 : 0,
    body: input.body,
    author_role: input.author_role,
    created_at: canonicalTimestamp(input.created_at ?? new Date()),
    prev_hash: prev ? prev.leaf_hash : GENESIS_PREV_HASH,
  };
  const leafHash = eventLeafHash(unhashed);
  const owner = input.approved ?? input.author_role === 'owner';
  const r = await tx.query<EventRow>(
    `insert into timeline_events (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning ${COLUMNS}`,
    [
      input.id ?? randomUUID(),
      input.entity_type,
      input.entity_id,
      unhashed.seq,
      input.owner_id,
      input.author_id,
      input.author_role,
      owner ? 'public' : 'private',
      owner ? 'approved' : 'pending',
      input.body,
      unhashed.created_at,
      unhashed.prev_hash,
      leafHash,
    ],
  );
  return fromRow(r.rows[0]!);
}

/** The entity's whole own chain, in seq order. */
export async function loadChain(db: Queryable, entityType: string, entityId: string): Promise<StoredEvent[]> {
  const r = await db.query<EventRow>(`select ${COLUMNS} from timeline_events where entity_type = $1 and entity_id = $2 order by seq`, [
    entityType,
    entityId,
  ]);
  return r.rows.map(fromRow);
}

/** Care events on a farm's chain (body `type` = "care"), for inheritance into its individuals' timelines. */
export async function loadFarmCare(db: Queryable, farmId: string): Promise<StoredEvent[]> {
  const r = await db.query<EventRow>(
    `select ${COLUMNS} from timeline_events where entity_type = 'farm' and entity_id = $1 and (body->>'type') = 'care' order by seq`,
    [farmId],
  );
  return r.rows.map(fromRow);
}

/** Strips the workflow fields: exactly the hashed event, as the verifier and exports expect. */
export function toChainEvent(e: StoredEvent): ChainEvent {
  return {
    entity_type: e.entity_type,
    entity_id: e.entity_id,
    seq: e.seq,
    body: e.body,
    ...(e.author_role === undefined ? {} : { author_role: e.author_role }),
    created_at: e.created_at,
    prev_hash: e.prev_hash,
    leaf_hash: e.leaf_hash,
  };
}
