import type { Container } from '../../container.js';
import { cidForBytes } from '../cid.js';

/**
 * Store bytes under their CIDv1 and record them in the `blobs` table, in that order, so a row
 * never names bytes the store lacks. Returns whether this call wrote the bytes, which is what a
 * failed request's cleanup needs to know.
 */
export async function storeBlob(c: Pick<Container, 'db' | 'blobs'>, bytes: Uint8Array, contentType: string): Promise<{ cid: string; created: boolean }> {
  const cid = await cidForBytes(bytes);
  const { created } = await c.blobs.put(cid, bytes, { contentType });
  await c.db.query('insert into blobs (cid, size, content_type) values ($1, $2, $3) on conflict (cid) do nothing', [cid, bytes.byteLength, contentType]);
  return { cid, created };
}
