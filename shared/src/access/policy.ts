/**
 * The access policy, one table for every kind of individual: what each standing towards an
 * owner's individual allows. Pure; the facts it decides on (ownership, the grant, publication)
 * come from the access repository (shared/src/repos/access.repo.ts) through standing.ts.
 *
 * - The owner may do everything.
 * - A read-write grantee may read and write (timeline events, care, photos); a read grantee may
 *   read. Deleting, merging, labelling answers and granting stay the owner's.
 * - Anyone may read a published individual; a farm is never published.
 *
 * Whatever is refused for lack of any standing must be answered exactly as a missing entity
 * is (404), so ids cannot be probed; `decide` says which refusal applies.
 *
 * Account records are not individuals and this table does not apply to them: an account's
 * surveys, fruit batches, herd counts and alerts, and farms are its own only. No grant and no
 * publication reaches them, and a record of another account answers exactly as a missing one
 * (404). Their repositories take an `OwnerScope` (owner-scope.ts), which only the authenticated
 * caller or a job the API queued for it can make, and pick rows by `scope.ownerId`.
 */

/** What a grant lets the grantee do with the owner's individuals of one kind. */
export type GrantAccess = 'read' | 'write';

/** How the caller stands towards one individual; `null`: no standing at all. */
export type Standing = 'owner' | GrantAccess | null;

/** What the caller wants to do. */
export type Action = 'read' | 'write' | 'label' | 'delete' | 'merge' | 'grant';

const ALLOWED: Record<'owner' | GrantAccess, readonly Action[]> = {
  owner: ['read', 'write', 'label', 'delete', 'merge', 'grant'],
  write: ['read', 'write'],
  read: ['read'],
};

/** The ranked needs of the routes that ask "at least read / write / owner". */
export type Need = 'read' | 'write' | 'owner';
const NEED_ACTION: Record<Need, Action> = { read: 'read', write: 'write', owner: 'delete' };

export type Decision = 'allow' | 'not_found' | 'forbidden';

/**
 * Allow, or which refusal: `not_found` when the caller has no standing and the entity is not
 * published (the caller must not learn it exists), `forbidden` when the caller can see it but
 * its standing is too weak.
 */
export function decide(standing: Standing, action: Action, opts: { published?: boolean } = {}): Decision {
  if (standing && ALLOWED[standing].includes(action)) return 'allow';
  if (!standing && action === 'read' && opts.published) return 'allow';
  return standing || opts.published ? 'forbidden' : 'not_found';
}

/** `decide` for a ranked need (read < write < owner). */
export const decideNeed = (standing: Standing, need: Need, opts: { published?: boolean } = {}): Decision =>
  decide(standing, NEED_ACTION[need], opts);
