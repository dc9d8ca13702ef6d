/**
 * Who owns a timeline entity. Trees, fruit and animals are rows of `individuals` (the kind must
 * match the path's entity type). Farms are per account: `orchard-1` names the caller's own farm
 * of that name, bound when its owner first enrols into it or sets its boundary. A farm the caller
 * has not bound has no owner as far as the caller can tell, so events on it are refused with 403
 * like any unenrolled entity, and nobody can take over another account's farm.
 */
import type { OwnerScope } from '../../access/owner-scope.js';
import type { Queryable } from '../../ports/database.port.js';
import type { EntityType } from './chain-store.js';
import { animalRefToId } from '../../domain/animal-did.js';
import { isUuid } from '../../domain/ids.js';

/** An entity with a resolvable owner. */
export interface ResolvedEntity {
  entity_type: EntityType;
  entity_id: string;
  owner_id: string;
  /** The enclosing farm of an individual, when it has one. */
  farm_id: string | null;
}

/**
 * Whose farm a farm id names. `{ owner }`: a farm_id as a client writes it, within that account's
 * scope (a farm is its account's own only, shared/src/access/policy.ts; with no account it names
 * nothing). No scope: the farm's internal chain id (`<owner_id>/<farm_id>`, or a legacy plain
 * farm_id), as job payloads and stored events carry it.
 */
export interface FarmScope {
  owner: OwnerScope | null;
}

/** The entity's owner, or null when it has none (not enrolled, deleted, wrong kind). */
export async function resolveEntity(db: Queryable, type: EntityType, id: string, scope?: FarmScope): Promise<ResolvedEntity | null> {
  if (type === 'farm') return scope ? resolveOwnFarm(db, scope.owner, id) : resolveFarmChain(db, id);
  // An animal is named by its animal_did as well as by its uuid; both reach the same chain.
  if (type === 'animal') id = animalRefToId(id) ?? id;
  // A malformed id cannot name an individual; asking PostgreSQL would only raise a cast error.
  if (!isUuid(id)) return null;
  const r = await db.query<{ owner_id: string; farm_id: string | null }>(
    'select owner_id, farm_id from individuals where id = $1 and kind = $2 and deleted_at is null',
    [id.toLowerCase(), type],
  );
  const row = r.rows[0];
  return row ? { entity_type: type, entity_id: id.toLowerCase(), owner_id: row.owner_id, farm_id: row.farm_id } : null;
}

const farmEntity = (chainId: string, owner: string): ResolvedEntity => ({
  entity_type: 'farm',
  entity_id: chainId,
  owner_id: owner,
  farm_id: null,
});

async function resolveFarmChain(db: Queryable, chainId: string): Promise<ResolvedEntity | null> {
  const r = await db.query<{ owner_id: string }>('select owner_id from farms where chain_id = $1', [chainId]);
  return r.rows[0] ? farmEntity(chainId, r.rows[0].owner_id) : null;
}

/**
 * The caller's own farm named `farmId`. A farm exists once its owner binds it: by setting its
 * boundary ({@link bindFarm}) or by enrolling an individual with that farm_id (bound here, on
 * first use). Another account's farm of the same name is invisible: it is simply not this one.
 */
async function resolveOwnFarm(db: Queryable, owner: OwnerScope | null, farmId: string): Promise<ResolvedEntity | null> {
  if (!owner) return null;
  const callerId = owner.ownerId;
  const bound = await db.query<{ chain_id: string }>('select chain_id from farms where owner_id = $1 and farm_id = $2', [callerId, farmId]);
  if (bound.rows[0]) return farmEntity(bound.rows[0].chain_id, callerId);
  const enrolled = await db.query('select 1 from individuals where owner_id = $1 and farm_id = $2 and deleted_at is null limit 1', [
    callerId,
    farmId,
  ]);
  if (!enrolled.rows[0]) return null;
  return bindFarm(db, owner, farmId);
}

/**
 * Bind `farmId` in the caller's account (idempotent; a concurrent binder of the same account wins
 * equally). A farm is its account's own only (shared/src/access/policy.ts), so binding one takes
 * the caller's `OwnerScope`.
 */
export async function bindFarm(db: Queryable, scope: OwnerScope, farmId: string): Promise<ResolvedEntity> {
  const ownerId = scope.ownerId;
  await db.query('insert into farms (farm_id, owner_id, chain_id) values ($1, $2, $3) on conflict (owner_id, farm_id) do nothing', [
    farmId,
    ownerId,
    `${ownerId}/${farmId}`,
  ]);
  const r = await db.query<{ chain_id: string }>('select chain_id from farms where owner_id = $1 and farm_id = $2', [ownerId, farmId]);
  return farmEntity(r.rows[0]!.chain_id, ownerId);
}
