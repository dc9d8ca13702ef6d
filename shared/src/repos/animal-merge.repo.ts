import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

/**
 * Every query on `animal_merges` (migration 199) and the image rows a merge or an un-merge moves.
 * A merge deletes `from`'s image rows and copies them onto `into` under new ids; the row kept here
 * is what an un-merge needs to give `from` its photos back. Callers run these inside one
 * transaction and check ownership first: nothing here knows who is asking.
 *
 * The reads of an owner's merges (`findMerge`, `mergesOf`) take the owner's `OwnerScope`, made from
 * who is asking (shared/src/access/owner-scope.ts); the statements by image or individual id act on
 * animals the caller's ownership check has already passed.
 */

/** One of `from`'s photos as it was before the merge. */
export interface MergedPhoto {
  cid: string;
  source: string;
  in_record: boolean;
  width: number | null;
  height: number | null;
}

export interface MergeRecord {
  id: string;
  owner_id: string;
  into_id: string;
  from_id: string;
  photos: MergedPhoto[];
  copies: string[];
  created_at: Date;
  undone_at: Date | null;
}

/** A merge with both animals' names, as lists and the page show it. */
export interface MergeSummary extends MergeRecord {
  into_name: string | null;
  from_name: string | null;
}

const SUMMARY = `select m.*, a.name as into_name, b.name as from_name
  from animal_merges m join individuals a on a.id = m.into_id join individuals b on b.id = m.from_id`;

/** `from`'s photos in order, as the merge will record them. */
export async function photosOf(tx: Queryable, individualId: string) {
  const r = await tx.query<MergedPhoto & { id: string }>(
    'select id, cid, source, in_record, width, height from images where individual_id = $1 order by created_at, id',
    [individualId],
  );
  return r.rows;
}

/**
 * Copies one image row, and every descriptor computed from it, to `to` under the id `fresh`;
 * false when `to` already holds that cid (nothing copied). The descriptors' created_at is now, so
 * the owner's index sees new rows and rebuilds (workers/src/recognition/pool.ts).
 */
export async function copyImage(
  tx: Queryable,
  imageId: string,
  to: string,
  fresh: string,
  as: { source: string; in_record: boolean },
): Promise<boolean> {
  const ins = await tx.query<{ id: string }>(
    `insert into images (id, individual_id, owner_id, cid, source, in_record, width, height)
     select $1, $2, owner_id, cid, $4, $5, width, height from images where id = $3
     on conflict (individual_id, cid) do nothing returning id`,
    [fresh, to, imageId, as.source, as.in_record],
  );
  if (!ins.rows[0]) return false;
  await tx.query(
    `insert into descriptors (image_id, owner_id, model, model_version, global, local, quality, models, subject)
     select $1, owner_id, model, model_version, global, local, quality, models, subject from descriptors where image_id = $2`,
    [fresh, imageId],
  );
  return true;
}

/** The image row of `individualId` holding `cid`, if any. */
export async function imageByCid(tx: Queryable, individualId: string, cid: string): Promise<string | null> {
  const r = await tx.query<{ id: string }>('select id from images where individual_id = $1 and cid = $2', [individualId, cid]);
  return r.rows[0]?.id ?? null;
}

export async function deleteImages(tx: Queryable, ids: readonly string[], individualId: string): Promise<number> {
  const r = await tx.query('delete from images where id = any($1::uuid[]) and individual_id = $2', [ids, individualId]);
  return r.affectedRows;
}

/** `from` leaves lists and matching like a deleted animal, remembering where it went. */
export async function retire(tx: Queryable, fromId: string, intoId: string): Promise<void> {
  await tx.query(`update individuals set deleted_at = now(), attrs = attrs || $2::jsonb where id = $1`, [
    fromId,
    JSON.stringify({ merged_into: intoId }),
  ]);
}

/** `from` back in lists and matching. */
export async function revive(tx: Queryable, fromId: string): Promise<void> {
  await tx.query(`update individuals set deleted_at = null, attrs = attrs - 'merged_into' where id = $1`, [fromId]);
}

export async function insertMerge(tx: Queryable, m: Omit<MergeRecord, 'created_at' | 'undone_at'>): Promise<void> {
  await tx.query(`insert into animal_merges (id, owner_id, into_id, from_id, photos, copies) values ($1, $2, $3, $4, $5, $6)`, [
    m.id,
    m.owner_id,
    m.into_id,
    m.from_id,
    JSON.stringify(m.photos),
    m.copies,
  ]);
}

/** The owner's merge (null for anyone else's: the caller answers 404 either way); `lock` holds it for an un-merge. */
export async function findMerge(tx: Queryable, scope: OwnerScope, id: string, lock = false): Promise<MergeSummary | null> {
  const r = await tx.query<MergeSummary>(`${SUMMARY} where m.id = $1 and m.owner_id = $2${lock ? ' for update of m' : ''}`, [
    id,
    scope.ownerId,
  ]);
  return r.rows[0] ?? null;
}

/** The owner's merges that involve one animal, newest first. */
export async function mergesOf(tx: Queryable, scope: OwnerScope, individualId: string): Promise<MergeSummary[]> {
  const r = await tx.query<MergeSummary>(
    `${SUMMARY} where m.owner_id = $1 and (m.into_id = $2 or m.from_id = $2) order by m.created_at desc, m.id`,
    [scope.ownerId, individualId],
  );
  return r.rows;
}

export async function markUndone(tx: Queryable, id: string): Promise<void> {
  await tx.query('update animal_merges set undone_at = now() where id = $1', [id]);
}

/** Whether an animal is live (not deleted, not merged away). */
export async function isLive(tx: Queryable, individualId: string): Promise<boolean> {
  const r = await tx.query('select 1 from individuals where id = $1 and deleted_at is null', [individualId]);
  return r.rows.length > 0;
}
