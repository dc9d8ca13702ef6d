/**
 * Statements on `images` (an enrolled photo of one individual, by its content id) that read an
 * individual's photos; moving photos between individuals is the merge's (animal-merge.repo.ts).
 */
import type { Queryable } from '../ports/database.port.js';

export interface IndividualPhoto {
  id: string;
  cid: string;
  individual_id: string;
}

export interface NewPhoto {
  id: string;
  individual_id: string;
  owner_id: string;
  cid: string;
  source: string;
  /** True only for the photos of the first enrolment, which the canonical record names. */
  in_record: boolean;
  width: number | null;
  height: number | null;
}

export const imagesRepo = {
  /**
   * Adds a photo to an individual and returns its row id, and whether this call inserted it: on a
   * retry the row exists already (`do update` with no change makes `returning` give its id).
   */
  async addToIndividual(db: Queryable, p: NewPhoto): Promise<{ id: string; inserted: boolean }> {
    const r = await db.query<{ id: string; inserted: boolean }>(
      `insert into images (id, individual_id, owner_id, cid, source, in_record, width, height)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (individual_id, cid) do update set source = images.source returning id, (xmax = 0) as inserted`,
      [p.id, p.individual_id, p.owner_id, p.cid, p.source, p.in_record, p.width, p.height],
    );
    return r.rows[0]!;
  },

  /** The content ids of an individual's first `limit` photos, oldest first. */
  async firstCids(db: Queryable, individualId: string, limit: number): Promise<string[]> {
    const r = await db.query<{ cid: string }>('select cid from images where individual_id = $1 order by created_at, id limit $2', [
      individualId,
      limit,
    ]);
    return r.rows.map((x) => x.cid);
  },

  /** The content id of each of these photos (an unknown id is left out). */
  async cidsOf(db: Queryable, imageIds: readonly string[]): Promise<{ id: string; cid: string }[]> {
    const r = await db.query<{ id: string; cid: string }>('select id, cid from images where id = any($1::uuid[])', [[...imageIds]]);
    return r.rows;
  },

  /** Every photo of these individuals, oldest first (ties by id, so the order is stable). */
  async photosOf(db: Queryable, individualIds: readonly string[]): Promise<IndividualPhoto[]> {
    const r = await db.query<IndividualPhoto>(
      'select id, cid, individual_id from images where individual_id = any($1::uuid[]) order by created_at, id',
      [[...individualIds]],
    );
    return r.rows;
  },
};
