/**
 * What the public anchor log says about an entity: not its id but an opaque commitment to it.
 * The log (GET /api/anchor/checkpoints, and Cardano metadata) is public, while most trees,
 * fruit, animals and farms are private: an id or `farm/<owner>/<farm>` in the log would let
 * anyone recognise a private entity, link its anchorings and count how many it has.
 *
 * commitment = "c1:" + base64url(SHA-256("markless.entity-commitment/v1\n" + salt_hex + "\n" + entity))
 *
 * The salt is an HMAC of (entity, size, root) under a server secret that never leaves the
 * database, so each anchoring gets a fresh commitment (two checkpoints of one entity cannot be
 * linked, nor entities counted) while the server can always re-derive it. Whoever is shown the
 * salt (the owner's evidence bundle; the consistency proof of a published entity) can open the
 * commitment and check it names their entity. Without the salt a guessed id cannot be tested.
 * 46 characters: fits Cardano's 64-byte metadata text limit.
 */
import { createHash, createHmac } from 'node:crypto';

export const COMMITMENT_PREFIX = 'c1:';

/** The commitment to `entity` (`<type>/<id>`) under `saltHex`. */
export function entityCommitment(entity: string, saltHex: string): string {
  const digest = createHash('sha256').update(`markless.entity-commitment/v1\n${saltHex}\n${entity}`, 'utf8').digest('base64url');
  return `${COMMITMENT_PREFIX}${digest}`;
}

/** The salt of one anchoring: deterministic for (entity, size, root), unguessable without `secret`. */
export function commitmentSalt(secret: Uint8Array, entity: string, size: number, rootHex: string): string {
  return createHmac('sha256', secret).update(`${entity}\n${size}\n${rootHex}`, 'utf8').digest('hex');
}

/** Whether a logged `claimed` entity is `entity`: named outright (older logs) or committed to under `saltHex`. */
export function entityMatches(claimed: string, entity: string, saltHex?: string | null): boolean {
  if (claimed === entity) return true;
  return typeof saltHex === 'string' && /^[0-9a-f]{64}$/.test(saltHex) && claimed === entityCommitment(entity, saltHex);
}
