import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { isUuid } from '../../../shared/src/domain/ids.js';

/**
 * The tree id a reference names. A code no tree has is the same 404 as a missing id; whether the
 * caller may use the tree is decided afterwards by id, as before, so a code reveals nothing more.
 */
export async function treeIdOf(db: Queryable, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const r = await db.query<{ individual_id: string }>(
    `select r.individual_id from tree_records r join individuals i on i.id = r.individual_id
     where upper(r.code) = upper($1) and i.deleted_at is null`,
    [ref.replace(/\s+/g, '')],
  );
  if (!r.rows[0]) throw ERRORS.notFound();
  return r.rows[0].individual_id;
}
