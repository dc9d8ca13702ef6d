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

export const imagesRepo = {
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
