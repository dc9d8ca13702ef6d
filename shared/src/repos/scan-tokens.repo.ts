/**
 * Statements behind tree scans (spec 3, "Scan token (tree)"): the single-use `scan_tokens` a scan
 * issues, stored by the hash of the token only, and the species of the caller's own trees that
 * the scan offers first. Which species are offered and when a token may be confirmed is the scan
 * service's decision; the conditions live here once so that of two racing confirms one wins.
 * A token and the trees it ranks are the caller's own (shared/src/access/policy.ts): every
 * statement takes the caller's `OwnerScope`.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

/** A token as issued: its hash, the offered species (best first) and when it stops counting. */
export interface NewScanToken {
  hash: string;
  speciesGuess: string | null;
  topK: readonly string[];
  expiresAt: Date;
}

/** A token is live while it is the owner's, unconsumed and unexpired. */
const LIVE = 'hash = $1 and owner_id = $2 and consumed_at is null and expires_at > now()';

export const scanTokensRepo = {
  /** The species written on the owner's live trees (blank ones left out) with how many trees each, most first. */
  async ownTreeSpecies(db: Queryable, scope: OwnerScope): Promise<{ species: string; n: number }[]> {
    const r = await db.query<{ species: string; n: number }>(
      `select species, count(*)::int as n from individuals
        where owner_id = $1 and kind = 'tree' and deleted_at is null and coalesce(trim(species), '') <> ''
        group by species order by n desc, species`,
      [scope.ownerId],
    );
    return r.rows;
  },

  /** A token of the scope's account. */
  async insert(db: Queryable, scope: OwnerScope, t: NewScanToken): Promise<void> {
    await db.query('insert into scan_tokens (hash, owner_id, species_guess, top_k, expires_at) values ($1, $2, $3, $4, $5)', [
      t.hash,
      scope.ownerId,
      t.speciesGuess,
      JSON.stringify(t.topK),
      t.expiresAt,
    ]);
  },

  /** Deletes the owner's tokens that expired more than a day ago. */
  async sweepExpired(db: Queryable, scope: OwnerScope): Promise<void> {
    await db.query(`delete from scan_tokens where owner_id = $1 and expires_at < now() - interval '1 day'`, [scope.ownerId]);
  },

  /** The offered species of the owner's live token with this hash; null for a wrong, used, expired or foreign one. */
  async liveOffer(db: Queryable, hash: string, scope: OwnerScope): Promise<string[] | null> {
    const r = await db.query<{ top_k: string[] }>(`select top_k from scan_tokens where ${LIVE}`, [hash, scope.ownerId]);
    return r.rows[0]?.top_k ?? null;
  },

  /** Consumes the token if it is still live; answers whether this call consumed it. */
  async consume(db: Queryable, hash: string, scope: OwnerScope): Promise<boolean> {
    const r = await db.query(`update scan_tokens set consumed_at = now() where ${LIVE}`, [hash, scope.ownerId]);
    return r.affectedRows === 1;
  },
};

export type ScanTokensRepo = typeof scanTokensRepo;
