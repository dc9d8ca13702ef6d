/**
 * Statements behind a tree's provenance and evidence exports: its canonical record
 * (`tree_records`), a fruit's or farm boundary's newest record (`entity_records`), the count of
 * its photos, and whether a stored blob may be served to a caller. Who owns what, and what a
 * bundle holds, are decided in api/src/services/provenance.service.ts.
 */
import type { Queryable } from '../ports/database.port.js';

/** A tree's canonical record, as stored. */
export interface TreeRecordRow {
  individual_id: string;
  code: string;
  record_cbor: Buffer;
  record_cid: string;
  record_hash: string;
  created_at: Date;
}

/** A fruit's or farm boundary's record, as stored. */
export interface SideRecordBytes {
  record_cbor: Buffer;
  record_cid: string;
  record_hash: string;
}

const RECORD = 'r.individual_id, r.code, r.record_cbor, r.record_cid, r.record_hash, r.created_at';

export const provenanceRepo = {
  /** The tree's canonical record; null when it has none. */
  async treeRecord(q: Queryable, treeId: string): Promise<TreeRecordRow | null> {
    const r = await q.query<TreeRecordRow>(`select ${RECORD} from tree_records r where r.individual_id = $1`, [treeId]);
    return r.rows[0] ?? null;
  },

  /** The record a printed code names, only while its tree is published and not deleted; null otherwise. */
  async publishedTreeRecord(q: Queryable, code: string): Promise<TreeRecordRow | null> {
    const r = await q.query<TreeRecordRow>(
      `select ${RECORD} from tree_records r
         join individuals i on i.id = r.individual_id where r.code = $1 and i.visibility = 'public' and i.deleted_at is null`,
      [code],
    );
    return r.rows[0] ?? null;
  },

  /** The newest record of a fruit or a farm's boundary; null when none was written. */
  async latestSideRecord(q: Queryable, entityType: 'fruit' | 'farm', entityId: string): Promise<SideRecordBytes | null> {
    const r = await q.query<SideRecordBytes>(
      'select record_cbor, record_cid, record_hash from entity_records where entity_type = $1 and entity_id = $2 order by created_at desc limit 1',
      [entityType, entityId],
    );
    return r.rows[0] ?? null;
  },

  /** How many photos the individual has (all of them, not only those in its record). */
  async imageCount(q: Queryable, individualId: string): Promise<number> {
    const r = await q.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [individualId]);
    return r.rows[0]!.n;
  },

  /**
   * A stored blob's type and size when `callerId` (null: nobody signed in) may fetch it; null
   * otherwise. Allowed: its uploader; for a live individual's photo, the photo's owner, anyone for
   * a photo in a published tree's record or of a published fruit, and a current grantee of that
   * kind; the owner of a population count carrying it; the owner and the author of a live care
   * entry whose packaging photo it is; the account whose identify query it was; and the owner of a
   * packing batch whose photo or fruit view it is.
   */
  async readableBlob(q: Queryable, cid: string, callerId: string | null): Promise<{ content_type: string; size: number } | null> {
    const r = await q.query<{ content_type: string; size: number }>(
      `select b.content_type, b.size from blobs b where b.cid = $1 and (
         exists (select 1 from blob_owners o where o.cid = b.cid and o.owner_id = $2::uuid)
         or exists (
           select 1 from images i join individuals t on t.id = i.individual_id
            where i.cid = b.cid and t.deleted_at is null
              and (i.owner_id = $2::uuid or (i.in_record and t.kind = 'tree' and t.visibility = 'public')
                   or (t.kind = 'fruit' and t.visibility = 'public')
                   or exists (select 1 from grants g where g.owner_id = t.owner_id and g.grantee_id = $2::uuid
                               and g.kind = t.kind and g.revoked_at is null)))
         or exists (select 1 from population_counts p where p.owner_id = $2::uuid and b.cid = any(p.media_cids))
         or exists (select 1 from care_entries ce where ce.photo_cid = b.cid and ce.deleted_at is null
                      and (ce.owner_id = $2::uuid or ce.author_id = $2::uuid))
         or exists (select 1 from identify_queries q where q.owner_id = $2::uuid and b.cid = any(q.image_cids))
         or exists (select 1 from fruit_batch_rows fr join fruit_batches fb on fb.id = fr.batch_id where fr.cid = b.cid and fb.owner_id = $2::uuid)
         or exists (select 1 from fruit_batch_views fv join fruit_batches fb on fb.id = fv.batch_id where fv.cid = b.cid and fb.owner_id = $2::uuid))`,
      [cid, callerId],
    );
    const row = r.rows[0];
    return row ? { content_type: row.content_type, size: Number(row.size) } : null;
  },
};

export type ProvenanceRepo = typeof provenanceRepo;
