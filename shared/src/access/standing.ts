import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';
import { accessRepo, type IndividualFacts } from '../repos/access.repo.js';
import { decideNeed, type Decision, type Need, type Standing } from './policy.js';

/** The caller's standing towards the individuals `ownerId` owns of `kind`: ownership or a grant. */
export async function standingFor(q: Queryable, callerId: string, ownerId: string, kind: Kind): Promise<Standing> {
  if (callerId === ownerId) return 'owner';
  return accessRepo.grantAccess(q, ownerId, callerId, kind);
}

/**
 * A live individual of `kind` and what the policy says of the caller's `need` on it. A missing
 * individual is `not_found`, exactly as one the caller has no standing towards.
 */
export async function individualAccess(
  q: Queryable,
  callerId: string | null,
  id: string,
  kind: Kind,
  need: Need,
): Promise<{ decision: Decision; individual?: IndividualFacts; standing: Standing }> {
  const individual = await accessRepo.liveIndividual(q, id, kind);
  if (!individual) return { decision: 'not_found', standing: null };
  const standing = callerId ? await standingFor(q, callerId, individual.owner_id, kind) : null;
  return { decision: decideNeed(standing, need, { published: false }), individual, standing };
}
