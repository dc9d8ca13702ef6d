/**
 * The one reference model for stored blobs. A blob's bytes and its `blobs` row are deleted only
 * when nothing at all names its CID: every table column that holds a CID is listed below, and a
 * test (blob-refs.spec) fails when a migration adds a CID column this list does not know. Callers
 * only ever *release* CIDs they are done with; whether the blob goes is decided here, under a
 * per-CID lock that storeBlob takes too, so a concurrent upload of the same bytes never ends up
 * with a row naming bytes that were just deleted.
 *
 * Who may release what: a request releases only blobs it created itself (storeBlob answered
 * `created: true`), and an owner's delete releases the CIDs its own rows named. A public route
 * never releases a CID that existed before it was called.
 */
import type { Queryable } from '../../ports/database.port.js';
import type { Container } from '../../container.js';

export interface BlobReference {
  table: string;
  column: string;
  /** text[] column: the CID is one element. */
  array?: boolean;
  /** Extra condition: the row counts as a reference only when it holds. */
  where?: string;
}

/** Every column that names a blob. A row here keeps the blob, whoever's it is. */
export const BLOB_REFERENCES: readonly BlobReference[] = [
  { table: 'images', column: 'cid' },
  { table: 'identify_queries', column: 'image_cids', array: true },
  // A deleted care entry is a tombstone whose photo_cid is cleared; a live one keeps its photo.
  { table: 'care_entries', column: 'photo_cid' },
  { table: 'fruit_batch_rows', column: 'cid' },
  // Every view of a batch's fruit, the first one's included (it is the row's cid as well).
  { table: 'fruit_batch_views', column: 'cid' },
  { table: 'population_counts', column: 'media_cids', array: true },
  { table: 'animal_models3d', column: 'model_cid' },
  // Videos: named by no image row, owned by their uploader.
  { table: 'blob_owners', column: 'cid' },
  // Surveys: the video and each track's crops, shown in review and sent by "enrol as new".
  { table: 'surveys', column: 'video_cid' },
  { table: 'survey_tracks', column: 'frame_cids', array: true },
  { table: 'survey_tracks', column: 'enrol_cids', array: true },
];

/**
 * Columns named like a CID that do not name a stored blob: evidence records live in the row
 * itself (record_cbor), so their CID is an address, not a reference into the blob store.
 */
export const NOT_BLOB_COLUMNS: readonly string[] = ['tree_records.record_cid', 'entity_records.record_cid'];

function clause(r: BlobReference): string {
  // `@>` (not `= any`) so the GIN index on the array column answers it.
  const match = r.array ? `t.${r.column} @> array[$1]::text[]` : `t.${r.column} = $1`;
  return `exists (select 1 from ${r.table} t where ${match}${r.where ? ` and (${r.where})` : ''})`;
}

/**
 * True when anything names `cid`: a row of {@link BLOB_REFERENCES}, a queued or running job
 * (embedded queue) whose data names it, or an upload staged less than `graceS` seconds ago
 * (a request still between writing the bytes and writing its row).
 */
export async function isBlobReferenced(q: Queryable, cid: string, graceS: number): Promise<boolean> {
  const sql = `select (${[
    ...BLOB_REFERENCES.map(clause),
    `exists (select 1 from jobs j where j.state in ('waiting', 'active') and position($1 in j.data::text) > 0)`,
    `exists (select 1 from upload_staging s where s.cid = $1 and s.created_at >= now() - ($2 || ' seconds')::interval)`,
  ].join('\n or ')}) as used`;
  const r = await q.query<{ used: boolean }>(sql, [cid, String(graceS)]);
  return Boolean(r.rows[0]?.used);
}

/** The per-CID lock shared by {@link releaseBlobs} and storeBlob. */
export async function lockBlob(tx: Queryable, cid: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`blob:${cid}`]);
}

/**
 * Delete each of `cids` that nothing references; returns the CIDs deleted. The check, the row
 * delete and the byte delete happen under the CID's lock, so no reference can appear in between.
 */
export async function releaseBlobs(c: Pick<Container, 'db' | 'blobs' | 'config'>, cids: readonly string[]): Promise<string[]> {
  const deleted: string[] = [];
  for (const cid of new Set(cids)) {
    const gone = await c.db.transaction(async (tx) => {
      await lockBlob(tx, cid);
      if (await isBlobReferenced(tx, cid, c.config.ORPHAN_BLOB_GRACE_S)) return false;
      await tx.query('delete from blobs where cid = $1', [cid]);
      await c.blobs.delete(cid);
      return true;
    });
    if (gone) deleted.push(cid);
  }
  return deleted;
}

/** Remove one staging row per CID: this request's own, never another request's for the same bytes. */
export async function unstage(q: Queryable, cids: readonly string[]): Promise<void> {
  for (const cid of cids) {
    await q.query(
      'delete from upload_staging where ctid = (select ctid from upload_staging where cid = $1 order by created_at desc limit 1)',
      [cid],
    );
  }
}

/**
 * Marks an upload's bytes as staged before they land, so a process killed mid-request leaves a row
 * the orphan sweep finds (one row per request: two requests staging the same bytes keep two).
 */
export async function stage(q: Queryable, cid: string): Promise<void> {
  await q.query('insert into upload_staging (cid) values ($1)', [cid]);
}

/** Content ids with a staging row older than the grace (an upload that never finished), at most `limit`. */
export async function staleStaged(q: Queryable, graceS: number, limit: number): Promise<string[]> {
  const r = await q.query<{ cid: string }>(
    `select distinct cid from upload_staging where created_at < now() - ($1 || ' seconds')::interval limit $2`,
    [String(graceS), limit],
  );
  return r.rows.map((x) => x.cid);
}

/** Removes a content id's staging rows older than the grace (a younger one is a request still running). */
export async function clearStale(q: Queryable, cid: string, graceS: number): Promise<void> {
  await q.query(`delete from upload_staging where cid = $1 and created_at < now() - ($2 || ' seconds')::interval`, [cid, String(graceS)]);
}

/** Names an account as an uploader of a blob no image row names (a video), so it may fetch it back. */
export async function addBlobOwner(q: Queryable, cid: string, ownerId: string): Promise<void> {
  await q.query('insert into blob_owners (cid, owner_id) values ($1, $2) on conflict do nothing', [cid, ownerId]);
}

/** Removes an account's uploader rows of these blobs (a failed request gives back what it stored). */
export async function removeBlobOwner(q: Queryable, cids: readonly string[], ownerId: string): Promise<void> {
  await q.query('delete from blob_owners where cid = any($1) and owner_id = $2', [[...cids], ownerId]);
}
