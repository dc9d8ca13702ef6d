import type { BlobStore } from '../../ports/blob-store.port.js';
import type { Pinner } from '../../ports/anchor.port.js';
import type { Queryable } from '../../ports/database.port.js';
import { decodeRecord } from '../../evidence/record.js';

/** What {@link pinTreeEvidence} needs from the container. */
export interface PinDeps {
  db: Queryable;
  blobs: BlobStore;
  pinner: Pinner;
}

/**
 * Pins a tree's canonical record and the photos it names to the IPFS node. Returns the pinned
 * CIDs; throws on the first failure (callers log it: pinning never fails an enrolment).
 */
export async function pinTreeEvidence(deps: PinDeps, treeId: string): Promise<string[]> {
  const r = await deps.db.query<{ record_cbor: Buffer; record_cid: string }>(
    'select record_cbor, record_cid from tree_records where individual_id = $1',
    [treeId],
  );
  const row = r.rows[0];
  if (!row) return [];
  const pinned: string[] = [];
  for (const cid of decodeRecord(new Uint8Array(row.record_cbor)).images) {
    const bytes = await deps.blobs.get(cid);
    if (!bytes) throw new Error(`blob ${cid} is missing from the store`);
    pinned.push(await deps.pinner.pinFile(cid, new Uint8Array(bytes)));
  }
  pinned.push(await deps.pinner.pinDagCbor(row.record_cid, new Uint8Array(row.record_cbor)));
  return pinned;
}
