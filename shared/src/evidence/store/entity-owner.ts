/**
 * Who owns a timeline entity. Trees, fruit and animals are rows of `individuals` (the kind must
 * match the path's entity type). A farm has no row of its own: it is bound, once and for good,
 * to the account that enrolled the first individual carrying that farm_id ("the first writer
 * becomes bound as owner", spec section 3). A farm nobody has enrolled into has no owner, so
 * events on it are refused with 403 like any unenrolled entity.
 */
import type { Queryable } from '../../ports/database.port.js';
import type { EntityType } from './chain-store.js';
import { animalRefToId } from '../../domain/animal-did.js';

/** An entity with a resolvable owner. */
export interface ResolvedEntity {
  entity_type: EntityType;
  entity_id: string;
  owner_id: string;
  /** The enclosing farm of an individual, when it has one. */
  farm_id: string | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The entity's owner, or null when it has none (not enrolled, deleted, wrong kind). */
export async function resolveEntity(db: Queryable, type: EntityType, id: string): Promise<ResolvedEntity | null> {
  if (type === 'farm') return resolveFarm(db, id);
  // An animal is named by its animal_did as well as by its uuid; both reach the same chain.
  if (type === 'animal') id = animalRefToId(id) ?? id;
  // A malformed id cannot name an individual; asking PostgreSQL would only raise a cast error.
  if (!UUID_RE.test(id)) return null;
  const r = await db.query<{ owner_id: string; farm_id: string | null }>(
    'select owner_id, farm_id from individuals where id = $1 and kind = $2 and deleted_at is null',
    [id.toLowerCase(), type],
  );
  const row = r.rows[0];
  return row ? { entity_type: type, entity_id: id.toLowerCase(), owner_id: row.owner_id, farm_id: row.farm_id } : null;
}

async function resolveFarm(db: Queryable, farmId: string): Promise<ResolvedEntity | null> {
  const bound = await db.query<{ owner_id: string }>('select owner_id from farms where farm_id = $1', [farmId]);
  let owner = bound.rows[0]?.owner_id;
  if (!owner) {
    const first = await db.query<{ owner_id: string }>(
      'select owner_id from individuals where farm_id = $1 and deleted_at is null order by created_at, id limit 1',
      [farmId],
    );
    if (!first.rows[0]) return null;
    // Bind now; a concurrent binder may win, and then its owner is the one that counts.
    await db.query('insert into farms (farm_id, owner_id) values ($1, $2) on conflict (farm_id) do nothing', [farmId, first.rows[0].owner_id]);
    owner = (await db.query<{ owner_id: string }>('select owner_id from farms where farm_id = $1', [farmId])).rows[0]?.owner_id;
  }
  return owner ? { entity_type: 'farm', entity_id: farmId, owner_id: owner, farm_id: null } : null;
}
