/**
 * The orphan-blob sweep. An upload stages each blob's CID in `upload_staging` before writing it
 * and clears the row once the request's work holds the blob (media.service). A process killed in
 * between (kill -9 mid-enrol) leaves the row, the `blobs` row and the bytes, with no job and no
 * image. At start-up and then periodically, staged CIDs older than ORPHAN_BLOB_GRACE_S that
 * nothing references are deleted; the grace period lets a queued job that names them run first.
 */
import type { Container } from '../../../shared/src/container.js';

/** Everything that can name an uploaded blob. A blob named by any of these is never swept. */
const REFERENCED = `
  exists (select 1 from images i where i.cid = $1)
  or exists (select 1 from identify_queries q where $1 = any(q.image_cids))
  or exists (select 1 from blob_owners o where o.cid = $1)
  or exists (select 1 from jobs j where j.state in ('waiting', 'active') and position($1 in j.data::text) > 0)
  or exists (select 1 from upload_staging s where s.cid = $1 and s.created_at >= now() - ($2 || ' seconds')::interval)`;

/** One sweep; returns the CIDs it deleted. */
export async function sweepOrphanBlobs(c: Pick<Container, 'db' | 'blobs' | 'config'>): Promise<string[]> {
  const grace = String(c.config.ORPHAN_BLOB_GRACE_S);
  const stale = await c.db.query<{ cid: string }>(
    `select distinct cid from upload_staging where created_at < now() - ($1 || ' seconds')::interval limit 500`,
    [grace],
  );
  const deleted: string[] = [];
  for (const { cid } of stale.rows) {
    const used = await c.db.query<{ used: boolean }>(`select (${REFERENCED}) as used`, [cid, grace]);
    if (!used.rows[0]?.used) {
      await c.db.query('delete from blobs where cid = $1', [cid]);
      await c.blobs.delete(cid);
      deleted.push(cid);
    }
    await c.db.query(`delete from upload_staging where cid = $1 and created_at < now() - ($2 || ' seconds')::interval`, [cid, grace]);
  }
  return deleted;
}

/** Sweep now and then every max(60 s, grace); returns a stop function. Failures are logged, never thrown. */
export function startOrphanSweep(c: Container): () => Promise<void> {
  const run = () => sweepOrphanBlobs(c)
    .then((cids) => cids.length && c.logger.info({ count: cids.length }, 'orphan blobs swept'))
    .catch((err: unknown) => c.logger.warn({ err }, 'orphan blob sweep failed'));
  const first = run();
  const timer = setInterval(run, Math.max(60, c.config.ORPHAN_BLOB_GRACE_S) * 1000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await first;
  };
}
