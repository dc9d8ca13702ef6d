/**
 * The canonical record of a tree, written once, at its first enrolment, inside the enrolment's
 * own transaction: the traceability code, the DAG-CBOR record naming the first enrolment's
 * photos, and the seq-0 timeline event that ties the record into the tree's chain (the offline
 * verifier's `record.in-chain` check looks for `record_cid`/`record_hash` in an event body).
 * Photos added later never change the record.
 */
import { encodeRecord, type EncodedRecord } from '../../evidence/record.js';
import { traceCode } from '../../domain/trace-code.js';
import type { Queryable } from '../../ports/database.port.js';
import { appendChainEvent } from './chain-store.js';

/** Longest run of code collisions tolerated before giving up (each has odds of about 2^-40). */
const MAX_CODE_ATTEMPTS = 16;
/** Species written when the enrolment named none: the record needs a non-empty string. */
export const UNKNOWN_SPECIES = 'unknown';

/** What the enrolment knows about the new tree. */
export interface TreeRecordSource {
  tree_id: string;
  owner_id: string;
  code_prefix: string;
  species?: string | null;
  lat?: number | null;
  lon?: number | null;
  /** CIDs of the first enrolment's photos, in upload order (duplicates are dropped). */
  image_cids: readonly string[];
  created_at?: Date;
}

/** The stored record row. */
export interface TreeRecordRow {
  code: string;
  record_cid: string;
  record_hash: string;
}

/** A tree's printed code (null: the tree has no record). */
export async function treeRecordCode(db: Queryable, treeId: string): Promise<string | null> {
  const r = await db.query<{ code: string }>('select code from tree_records where individual_id = $1', [treeId]);
  return r.rows[0]?.code ?? null;
}

/**
 * Writes the record, the code and the seq-0 event, unless the tree already has a record (a
 * retried job): then the existing row is returned and nothing is written.
 */
export async function writeTreeRecord(tx: Queryable, src: TreeRecordSource): Promise<TreeRecordRow> {
  const existing = await tx.query<TreeRecordRow>('select code, record_cid, record_hash from tree_records where individual_id = $1', [
    src.tree_id,
  ]);
  if (existing.rows[0]) return existing.rows[0];
  const code = await freeCode(tx, src);
  const encoded = encodeRecord({
    code: code.code,
    species: src.species?.trim() || UNKNOWN_SPECIES,
    geohash: code.geohash,
    images: [...new Set(src.image_cids)],
    created_at: src.created_at ?? new Date(),
  });
  await tx.query('insert into tree_records (individual_id, code, record_cbor, record_cid, record_hash) values ($1, $2, $3, $4, $5)', [
    src.tree_id,
    code.code,
    Buffer.from(encoded.bytes),
    encoded.cid,
    encoded.hash,
  ]);
  await appendChainEvent(tx, {
    entity_type: 'tree',
    entity_id: src.tree_id,
    owner_id: src.owner_id,
    author_id: src.owner_id,
    author_role: 'owner',
    body: recordEventBody(encoded),
    created_at: new Date(encoded.record.created_at),
  });
  return { code: code.code, record_cid: encoded.cid, record_hash: encoded.hash };
}

/** Body of the enrolment event: what the verifier needs to find the record in the chain. */
export function recordEventBody(encoded: EncodedRecord): Record<string, unknown> {
  return {
    type: 'enroll',
    code: encoded.record.code,
    record_cid: encoded.cid,
    record_hash: encoded.hash,
    images: encoded.record.images.length,
  };
}

async function freeCode(tx: Queryable, src: TreeRecordSource): Promise<{ code: string; geohash: string }> {
  for (let attempt = 0; attempt < MAX_CODE_ATTEMPTS; attempt++) {
    const candidate = traceCode({ prefix: src.code_prefix, treeId: src.tree_id, lat: src.lat, lon: src.lon, attempt });
    const taken = await tx.query('select 1 from tree_records where code = $1', [candidate.code]);
    if (!taken.rows.length) return candidate;
  }
  throw new Error('no free traceability code after repeated collisions');
}
