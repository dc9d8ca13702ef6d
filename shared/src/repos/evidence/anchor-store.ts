/**
 * Anchor rows: the trace of each anchoring back to its entity (spec section 6, "anchor
 * callback"). The `anchor` job calls {@link anchorChain}; proofs and provenance read the rows
 * back with {@link findAnchor} and let {@link refreshAnchor} advance a submitted Cardano anchor.
 */
import { randomUUID } from 'node:crypto';
import { chainRoot } from '../../evidence/chain.js';
import type { SignedCheckpoint } from '../../evidence/checkpoint.js';
import type { AnchorBackend, AnchorOutcome, AnchorStatus } from '../../ports/anchor.port.js';
import type { Database, Queryable } from '../../ports/database.port.js';
import { loadChain } from './chain-store.js';
import { commitmentFor } from './entity-secret.js';

/** One anchor row as the API shows it. */
export interface AnchorView {
  anchor_id: string;
  backend: 'local' | 'cardano';
  status: AnchorStatus;
  size: number;
  root_hex: string;
  tx_hash: string | null;
  explorer_url: string | null;
  confirmations: number;
  checkpoint_seq: number | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

interface AnchorRow extends Omit<AnchorView, 'anchor_id' | 'created_at' | 'updated_at'> {
  id: string;
  ttl_slot: string | number | null;
  entity_type: string;
  entity_id: string;
  tx_cbor_hex: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A row in the shape clients see (the transaction CBOR stays for exports). */
export function toAnchorView(r: AnchorRow): AnchorView {
  return {
    anchor_id: r.id,
    backend: r.backend,
    status: r.status,
    size: r.size,
    root_hex: r.root_hex,
    tx_hash: r.tx_hash,
    explorer_url: r.explorer_url,
    confirmations: r.confirmations,
    checkpoint_seq: r.checkpoint_seq,
    error: r.error,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** What the anchor job is asked to do. */
export interface AnchorJob {
  owner_id: string;
  entity_type: string;
  entity_id: string;
  event_id: string;
}

/**
 * Anchors the entity's whole current chain root. Idempotent: a root already anchored (or being
 * anchored) by this backend is not anchored twice; the existing row is returned.
 */
export async function anchorChain(db: Database, backend: AnchorBackend, job: AnchorJob): Promise<AnchorView> {
  const chain = await loadChain(db, job.entity_type, job.entity_id);
  if (chain.length === 0) throw new Error('nothing to anchor: the chain is empty');
  const root_hex = chainRoot(chain);
  // The public log names a fresh commitment, never the id (entity-commitment.ts): the owner's
  // bundle and a published entity's consistency proof carry the salt that opens it.
  const { commitment } = await commitmentFor(db, job.entity_type, job.entity_id, chain.length, root_hex);
  const req = { entity: commitment, size: chain.length, root_hex };
  let live = await liveRow(db, job.entity_type, job.entity_id, req.size, backend.kind);
  if (live && live.status !== 'pending') return toAnchorView(live);
  if (!live) {
    // Committed on its own, so `pending` is visible while a slow backend works; a concurrent job
    // inserting the same live row loses quietly on the partial unique index.
    await db.query(
      `insert into anchors (id, entity_type, entity_id, size, root_hex, backend, status, event_id, owner_id)
       values ($1, $2, $3, $4, $5, $6, 'pending', $7, $8) on conflict do nothing`,
      [randomUUID(), job.entity_type, job.entity_id, req.size, req.root_hex, backend.kind, job.event_id, job.owner_id],
    );
    live = (await liveRow(db, job.entity_type, job.entity_id, req.size, backend.kind))!;
    if (live.status !== 'pending') return toAnchorView(live);
  }
  const id = live.id;
  // The local backend's checkpoint and the row's new status commit together or not at all.
  return db.transaction(async (tx) => toAnchorView(await recordOutcome(tx, id, await backend.anchor(tx, req))));
}

async function recordOutcome(tx: Queryable, id: string, o: AnchorOutcome): Promise<AnchorRow> {
  const r = await tx.query<AnchorRow>(
    `update anchors set status = $2, tx_hash = $3, tx_cbor_hex = $4, explorer_url = $5, checkpoint_seq = $6, error = $7,
       confirmations = $8, ttl_slot = $9, inputs = $10::jsonb, updated_at = now() where id = $1 returning *`,
    [
      id,
      o.status,
      o.tx_hash ?? null,
      o.tx_cbor_hex ?? null,
      o.explorer_url ?? null,
      o.checkpoint?.seq ?? null,
      o.error ?? null,
      o.status === 'confirmed' ? 1 : 0,
      o.ttl_slot ?? null,
      o.inputs ? JSON.stringify(o.inputs) : null,
    ],
  );
  return r.rows[0]!;
}

async function liveRow(db: Queryable, type: string, id: string, size: number, backend: string): Promise<AnchorRow | undefined> {
  const r = await db.query<AnchorRow>(
    `select * from anchors where entity_type = $1 and entity_id = $2 and size = $3 and backend = $4 and status <> 'failed'`,
    [type, id, size, backend],
  );
  return r.rows[0];
}

/**
 * The anchor of the entity's root at `size` (any backend, newest first; a failed one only when
 * nothing better exists), or of its largest anchored size when `size` is omitted.
 */
export async function findAnchor(db: Queryable, type: string, id: string, size?: number): Promise<AnchorRow | undefined> {
  const r = await db.query<AnchorRow>(
    `select * from anchors where entity_type = $1 and entity_id = $2 and ($3::int is null or size = $3)
     order by (status = 'failed'), size desc, created_at desc limit 1`,
    [type, id, size ?? null],
  );
  return r.rows[0];
}

/** Timing knobs of {@link refreshAnchor}. */
export interface RefreshOptions {
  pollS: number;
  timeoutS: number;
}

/**
 * Advances a submitted anchor: asks the backend for confirmations (at most once per `pollS`),
 * marks it confirmed, or failed once the chain is past its TTL slot without it (so a failed
 * anchor can never land later). Rows written before TTLs existed fall back to `timeoutS`. A
 * backend that cannot be reached leaves the row as it was.
 */
export async function refreshAnchor(db: Queryable, backend: AnchorBackend, row: AnchorRow, opts: RefreshOptions): Promise<AnchorRow> {
  if (row.status !== 'submitted' || !row.tx_hash || row.backend !== backend.kind) return row;
  if (Date.now() - new Date(row.updated_at).getTime() < opts.pollS * 1000) return row;
  let progress;
  try {
    progress = await backend.progress(row.tx_hash, row.ttl_slot === null ? null : Number(row.ttl_slot));
  } catch {
    return row;
  }
  const legacyExpired =
    row.ttl_slot === null && progress.confirmations === 0 && Date.now() - new Date(row.created_at).getTime() > opts.timeoutS * 1000;
  const status: AnchorStatus = legacyExpired ? 'failed' : progress.status;
  const error =
    status !== 'failed'
      ? null
      : legacyExpired
        ? 'not in a block before the timeout'
        : `not in a block before its TTL slot ${String(row.ttl_slot)}: it can never land`;
  const r = await db.query<AnchorRow>(
    `update anchors set status = $2, confirmations = $3, error = $4, updated_at = now() where id = $1 and status = 'submitted' returning *`,
    [row.id, status, progress.confirmations, error],
  );
  return r.rows[0] ?? row;
}

/** The stored material an export needs to re-check an anchor offline. */
export async function anchorMaterial(db: Queryable, row: AnchorRow): Promise<{ checkpoint?: SignedCheckpoint; tx_cbor_hex?: string }> {
  if (row.backend === 'cardano') return row.tx_cbor_hex ? { tx_cbor_hex: row.tx_cbor_hex } : {};
  if (row.checkpoint_seq === null) return {};
  const r = await db.query<{ checkpoint: SignedCheckpoint }>('select checkpoint from checkpoint_log where seq = $1', [row.checkpoint_seq]);
  return r.rows[0] ? { checkpoint: r.rows[0].checkpoint } : {};
}

export type { AnchorRow };
