/**
 * Writes a fruit's or a farm boundary's canonical record, with the event that ties it into the
 * entity's chain (so the existing anchor route can anchor it), inside the caller's transaction.
 * Only called when EVIDENCE_FRUIT_AND_BOUNDARIES is on; with the switch off nothing here runs and
 * the data stays server-side, as the spec describes the live service.
 */
import type { Queryable } from '../../ports/database.port.js';
import type { BlobStore } from '../../ports/blob-store.port.js';
import type { Pinner } from '../../ports/anchor.port.js';
import { appendChainEvent } from './chain-store.js';
import type { EncodedSideRecord } from '../../evidence/side-record.js';

export interface SideRecordRow {
  record_cid: string;
  record_hash: string;
}

/** Idempotent: a retried job finds its record and writes nothing twice. */
export async function writeSideRecord(
  tx: Queryable,
  input: { entity_type: 'fruit' | 'farm'; entity_id: string; owner_id: string; encoded: EncodedSideRecord; body_type: string },
): Promise<SideRecordRow> {
  const { encoded } = input;
  const existing = await tx.query<SideRecordRow>(
    'select record_cid, record_hash from entity_records where entity_type = $1 and entity_id = $2 and record_cid = $3',
    [input.entity_type, input.entity_id, encoded.cid],
  );
  if (existing.rows[0]) return existing.rows[0];
  await tx.query('insert into entity_records (entity_type, entity_id, record_cbor, record_cid, record_hash) values ($1, $2, $3, $4, $5)', [
    input.entity_type,
    input.entity_id,
    Buffer.from(encoded.bytes),
    encoded.cid,
    encoded.hash,
  ]);
  await appendChainEvent(tx, {
    entity_type: input.entity_type,
    entity_id: input.entity_id,
    owner_id: input.owner_id,
    author_id: input.owner_id,
    author_role: 'owner',
    body: { type: input.body_type, record_cid: encoded.cid, record_hash: encoded.hash },
  });
  return { record_cid: encoded.cid, record_hash: encoded.hash };
}

/** Pins a side record and the blobs it names; callers log failures (pinning never fails a write). */
export async function pinSideRecord(
  deps: { blobs: BlobStore; pinner: Pinner },
  encoded: EncodedSideRecord,
  imageCids: readonly string[] = [],
) {
  for (const cid of imageCids) {
    const bytes = await deps.blobs.get(cid);
    if (!bytes) throw new Error(`blob ${cid} is missing from the store`);
    await deps.pinner.pinFile(cid, new Uint8Array(bytes));
  }
  await deps.pinner.pinDagCbor(encoded.cid, encoded.bytes);
}
