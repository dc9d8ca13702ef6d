/**
 * Whose account records a statement may touch. An account's surveys, fruit batches, herd counts
 * and alerts, and farms are its own only (policy.ts), so their repositories take an `OwnerScope`
 * rather than a bare owner id: a scope can only be made here, from who is asking, so a caller
 * cannot hand a repository an id it read from a request body or a path.
 *
 * The brand is a module-private symbol: no other file can write an object literal that type-checks
 * as an `OwnerScope`, and the architecture spec refuses an `as OwnerScope` cast outside this folder.
 *
 * One route picks whose records on purpose: the operator's data-science export
 * (`/api/admin/datasci/export`) takes `owner_id` from its query string, one owner's or, without
 * it, every owner's. That choice is an operator's alone, so `scopeChosenByOperator` asks for an
 * `OperatorCaller`, a value branded like the scope that only `operatorOf` makes, from a caller
 * whose admin rights the router's admin check has just read (api/src/http/router.ts, the one
 * place the architecture spec lets call it). Without that proof no code can turn a request's id
 * into a scope, nor ask for every owner's records (`EveryOwner`).
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

/** An administrator the router's admin check admitted on this request (api/src/http/router.ts). */
export interface OperatorCaller {
  readonly account_id: string;
  readonly [brand]: 'OperatorCaller';
}

/**
 * The proof an admin route's handler receives. Called by the router's admin check alone (the
 * architecture spec refuses it anywhere else), on the caller it resolved from the request's token,
 * whose `is_admin` was read from `admin_grants` on this very request (shared/src/access/admins.ts).
 */
export function operatorOf(caller: {
  readonly account_id: string;
  readonly is_admin: boolean;
  readonly token_hash: string;
}): OperatorCaller {
  if (!caller.is_admin) throw new TypeError('only an administrator is an operator');
  return Object.freeze({ account_id: caller.account_id }) as OperatorCaller;
}

/** Every owner's records at once: the operator's export when it names no owner. */
export interface EveryOwner {
  readonly ownerId: null;
  readonly [brand]: 'EveryOwner';
}

/**
 * The records an operator chose: one owner's (`ownerId`, from the admin route's query string on
 * purpose), or every owner's (`null`). Only an `OperatorCaller` can ask.
 */
export function scopeChosenByOperator(operator: OperatorCaller, ownerId: string | null): OwnerScope | EveryOwner {
  if (!operator?.account_id) throw new TypeError('an operator scope needs the operator');
  return ownerId === null ? (Object.freeze({ ownerId: null }) as EveryOwner) : make(ownerId);
}
