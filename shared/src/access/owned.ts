/**
 * The owner-only acts on an entity a job or a route has resolved: exporting its evidence, anchoring
 * its chain, binding a farm, writing a survey's event on an animal's timeline. The entity is
 * returned when `scope` owns it and null otherwise, so a caller cannot tell "not yours" from
 * "missing". Callers ask here instead of comparing owner ids themselves.
 */
import type { OwnerScope } from './owner-scope.js';
import { decideNeed } from './policy.js';

export function ownedBy<E extends { readonly owner_id: string }>(entity: E | null | undefined, scope: OwnerScope): E | null {
  if (!entity) return null;
  return decideNeed(entity.owner_id === scope.ownerId ? 'owner' : null, 'owner') === 'allow' ? entity : null;
}
