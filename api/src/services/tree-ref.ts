import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { isUuid } from '../../../shared/src/domain/ids.js';
import type { TreesRepo } from '../../../shared/src/repos/trees.repo.js';

/** What the tree reference lookup uses: the database handle and the trees repository's code lookup. */
export interface TreeRefDeps {
  db: Queryable;
  trees: Pick<TreesRepo, 'idByCode'>;
}

/** A tree's id from its id or its printed code. */
export type TreeRef = (ref: string) => Promise<string>;

/**
 * The tree id a reference names. A code no tree has is the same 404 as a missing id; whether the
 * caller may use the tree is decided afterwards by id, as before, so a code reveals nothing more.
 */
export function createTreeRef({ db, trees }: TreeRefDeps): TreeRef {
  return async (ref) => {
    if (isUuid(ref)) return ref.toLowerCase();
    const id = await trees.idByCode(db, ref.replace(/\s+/g, ''));
    if (!id) throw ERRORS.notFound();
    return id;
  };
}
