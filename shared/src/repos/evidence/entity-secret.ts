import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../ports/database.port.js';
import { commitmentSalt, entityCommitment } from '../../evidence/entity-commitment.js';

/**
 * The commitment secret, created once in the database (so an API and a worker, in any mode, agree
 * on it without sharing a file). Insert-if-absent then read: a race makes one row, read by both.
 */
export async function anchorSecret(db: Queryable): Promise<Uint8Array> {
  await db.query(`insert into anchor_secrets (name, secret) values ('entity-commitment', $1) on conflict (name) do nothing`, [
    randomBytes(32),
  ]);
  const r = await db.query<{ secret: Uint8Array }>(`select secret from anchor_secrets where name = 'entity-commitment'`);
  return new Uint8Array(r.rows[0]!.secret);
}

/** The salt and commitment the log carries for one anchoring of `type/id` at (size, root). */
export async function commitmentFor(
  db: Queryable,
  entityType: string,
  entityId: string,
  size: number,
  rootHex: string,
): Promise<{ entity: string; salt: string; commitment: string }> {
  const entity = `${entityType}/${entityId}`;
  const salt = commitmentSalt(await anchorSecret(db), entity, size, rootHex);
  return { entity, salt, commitment: entityCommitment(entity, salt) };
}
