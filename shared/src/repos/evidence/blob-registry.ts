import type { Container } from '../../container.js';
import { cidForBytes } from '../../evidence/cid.js';
import { lockBlob } from './blob-refs.js';

/**
 * Store bytes under their CIDv1 and record them in the `blobs` table, in that order, so a row
 * never names bytes the store lacks. Returns whether this call wrote the bytes, which is what a
 * failed request's cleanup needs to know: a request may only ever release blobs it created.
 * The row is written under the CID's lock (blob-refs): a release that deleted the bytes between
 * our put and our row is seen here, and the bytes are written again.
 */
export async function storeBlob(
  c: Pick<Container, 'db' | 'blobs'>,
  bytes: Uint8Array,
  contentType: string,
): Promise<{ cid: string; created: boolean }> {
  const cid = await cidForBytes(bytes);
  let { created } = await c.blobs.put(cid, bytes, { contentType });
  await c.db.transaction(async (tx) => {
    await lockBlob(tx, cid);
    await tx.query('insert into blobs (cid, size, content_type) values ($1, $2, $3) on conflict (cid) do nothing', [
      cid,
      bytes.byteLength,
      contentType,
    ]);
    if (!created && !(await c.blobs.has(cid))) created = (await c.blobs.put(cid, bytes, { contentType })).created;
  });
  return { cid, created };
}
