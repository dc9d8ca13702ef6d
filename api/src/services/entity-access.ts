/**
 * Who may read an entity's timeline (the "not yours" = "missing" rule). Readers are:
 * - the owner;
 * - a current grantee of the owner for that kind (a revoked grant gives nothing);
 * - anyone, signed in or not, when the individual is published (`visibility = 'public'`).
 * A private or restricted (unpublished) individual, and every farm, is readable by its owner and
 * grantees only. Everyone else gets exactly what a missing entity gets.
 */
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { EntityType } from '../../../shared/src/repos/evidence/chain-store.js';
import { resolveEntity, type ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { Caller } from '../http/route.js';
import { standingFor } from '../../../shared/src/access/standing.js';
import { decide } from '../../../shared/src/access/policy.js';
import { accessRepo } from '../../../shared/src/repos/access.repo.js';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { ownedBy } from '../../../shared/src/access/owned.js';

/** True when `caller` may read the entity's timeline and proofs. */
export async function canReadEntity(db: Queryable, entity: ResolvedEntity, caller: Caller | null): Promise<boolean> {
  if (caller && ownedBy(entity, scopeOfCaller(caller))) return true;
  if (entity.entity_type === 'farm') return false;
  const kind = entity.entity_type as Kind;
  const standing = caller ? await standingFor(db, caller.account_id, entity.owner_id, kind) : null;
  if (decide(standing, 'read') === 'allow') return true;
  return decide(null, 'read', { published: await accessRepo.isPublished(db, entity.entity_id) }) === 'allow';
}

/** The entity if the caller may read it, else null: the caller cannot tell "not yours" from "missing". */
export async function readableEntity(db: Queryable, type: EntityType, id: string, caller: Caller | null): Promise<ResolvedEntity | null> {
  const entity = await resolveEntity(db, type, id, { owner: caller ? scopeOfCaller(caller) : null });
  return entity && (await canReadEntity(db, entity, caller)) ? entity : null;
}

/** The entity if the caller owns it, else null (the same 404 for "not yours" and "missing"). */
export async function ownedEntity(db: Queryable, type: EntityType, id: string, caller: Caller): Promise<ResolvedEntity | null> {
  const scope = scopeOfCaller(caller);
  return ownedBy(await resolveEntity(db, type, id, { owner: scope }), scope);
}
