/**
 * The orphan-blob sweep. An upload stages each blob's CID in `upload_staging` before writing it
 * and clears the row once the request's work holds the blob (media.service). A process killed in
 * between (kill -9 mid-enrol) leaves the row, the `blobs` row and the bytes, with no job and no
 * image. At start-up and then periodically, staged CIDs older than ORPHAN_BLOB_GRACE_S that
 * nothing references are deleted; the grace period lets a queued job that names them run first.
 */
import type { Container } from '../../../shared/src/container.js';
import { clearStale, releaseBlobs, staleStaged } from '../../../shared/src/repos/evidence/blob-refs.js';

/**
 * One sweep; returns the CIDs it deleted. Whether a staged blob is still used is decided by the
 * one reference model (blob-refs): the same check every other release goes through.
 */
export async function sweepOrphanBlobs(c: Pick<Container, 'db' | 'blobs' | 'config'>): Promise<string[]> {
  const grace = c.config.ORPHAN_BLOB_GRACE_S;
  const deleted: string[] = [];
  for (const cid of await staleStaged(c.db, grace, 500)) {
    deleted.push(...(await releaseBlobs(c, [cid])));
    await clearStale(c.db, cid, grace);
  }
  return deleted;
}

/** Sweep now and then every max(60 s, grace); returns a stop function. Failures are logged, never thrown. */
export function startOrphanSweep(c: Container): () => Promise<void> {
  const run = () =>
    sweepOrphanBlobs(c)
      .then((cids) => cids.length && c.logger.info({ count: cids.length }, 'orphan blobs swept'))
      .catch((err: unknown) => c.logger.warn({ err }, 'orphan blob sweep failed'));
  const first = run();
  const timer = setInterval(() => void run(), Math.max(60, c.config.ORPHAN_BLOB_GRACE_S) * 1000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await first;
  };
}
