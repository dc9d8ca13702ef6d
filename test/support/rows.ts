import type { Queryable } from '../../shared/src/ports/database.port.js';

/** Rows one enrolled individual has: the no-loss, no-duplicate check of job and fault tests. */
export async function individualRowCounts(db: Queryable, individual: string) {
  const q = async (sql: string) => (await db.query<{ n: number }>(sql, [individual])).rows[0]!.n;
  return {
    individuals: await q('select count(*)::int as n from individuals where id = $1'),
    images: await q('select count(*)::int as n from images where individual_id = $1'),
    descriptors: await q('select count(*)::int as n from descriptors d join images i on i.id = d.image_id where i.individual_id = $1'),
  };
}
