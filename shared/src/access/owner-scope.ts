/**
 * Whose account records a statement may touch. An account's surveys, fruit batches, herd counts
 * and alerts, and farms are its own only (policy.ts), so their repositories take an `OwnerScope`
 * rather than a bare owner id: a scope can only be made here, from who is asking, so a caller
 * cannot hand a repository an id it read from a request body or a path.
 *
 * The brand is a module-private symbol: no other file can write an object literal that type-checks
 * as an `OwnerScope`, and the architecture spec refuses an `as OwnerScope` cast outside this folder.
 */
declare const brand: unique symbol;

export interface OwnerScope {
  readonly ownerId: string;
  readonly [brand]: 'OwnerScope';
}

function make(ownerId: string): OwnerScope {
  // An empty id would match no row, silently: refuse it loudly instead, as a bug in the caller.
  if (typeof ownerId !== 'string' || !ownerId) throw new TypeError('an owner scope needs an account id');
  return Object.freeze({ ownerId }) as OwnerScope;
}

/**
 * The authenticated caller's own records. `caller` is the one the HTTP layer resolved from the
 * request's token (api/src/http/caller.ts), the only place an account id comes from on a request.
 */
export function scopeOfCaller(caller: { readonly account_id: string; readonly token_hash: string }): OwnerScope {
  return make(caller.account_id);
}

/**
 * The records of the account a job runs for. A job's `owner_id` was written by the API when it
 * queued the job, from the caller's token, never from the request's body; queues are not reachable
 * by clients, so the payload's owner is as trusted as the token was.
 */
export function scopeOfJob(data: { readonly owner_id: string }): OwnerScope {
  return make(data.owner_id);
}

/**
 * The records of the account that owns an individual the caller has already been allowed to read:
 * an individual's own farm, whose care its timeline inherits. The owner comes from the stored
 * individual (`ResolvedEntity.owner_id`), never from the request.
 */
export function scopeOfIndividualOwner(individual: { readonly owner_id: string; readonly entity_type: string }): OwnerScope {
  return make(individual.owner_id);
}
