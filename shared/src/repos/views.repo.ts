/**
 * Statements behind an individual's views: its photos (`images`) with the newest descriptor of
 * each (`descriptors`: model version, global embedding, packed local keypoints, quality). Who may
 * read them is decided before, in shared/src/access; what they measure, in views.service.
 */
import type { Queryable } from '../ports/database.port.js';

/** One photo of an individual with its newest descriptor; the descriptor's columns are null without one. */
export interface ViewRow {
  image_id: string;
  cid: string;
  source: string;
  in_record: boolean;
  width: number | null;
  height: number | null;
  created_at: Date;
  model_version: string | null;
  global: Uint8Array | null;
  local: Uint8Array | null;
  quality: Record<string, unknown> | null;
}

export const viewsRepo = {
  /** Every photo of the individual, oldest first (ties by id), each with its newest descriptor. */
  async ofIndividual(db: Queryable, individualId: string): Promise<ViewRow[]> {
    const r = await db.query<ViewRow>(
      `select im.id as image_id, im.cid, im.source, im.in_record, im.width, im.height, im.created_at,
              d.model_version, d.global, d.local, d.quality
         from images im
         left join lateral (select * from descriptors x where x.image_id = im.id order by x.created_at desc limit 1) d on true
        where im.individual_id = $1 order by im.created_at, im.id`,
      [individualId],
    );
    return r.rows.map((v) => ({ ...v, created_at: new Date(v.created_at) }));
  },
};

export type ViewsRepo = typeof viewsRepo;
