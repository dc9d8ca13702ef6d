/**
 * Statements behind the public fruit routes (spec section 1 rules 3 and 5): published fruit with
 * their tree only when that tree is published too, their photos and newest evidence record, and
 * the single-use point-of-sale tokens (`fruit_scan_tokens`), stored by hash and carrying no
 * caller data. What may be shown, and when a token may be used, is the service's decision.
 */
import type { Queryable } from '../ports/database.port.js';

/** A published fruit; the tree columns are null unless its tree is published and live. */
export interface PublicFruitRow {
  id: string;
  species: string | null;
  name: string | null;
  created_at: Date;
  tree_id: string | null;
  tree_public: boolean;
  /** The public tree's printed code. */
  code: string | null;
}

/** A token as stored: the fruit it offered, and whether and until when it can still be used. */
export interface FruitScanTokenRow {
  candidates: string[];
  consumed_at: Date | null;
  expires_at: Date;
}

export const fruitPublicRepo = {
  /** The live, published fruit among `ids`, each with its tree only when that tree is published and live. */
  async publicFruit(db: Queryable, ids: readonly string[]): Promise<PublicFruitRow[]> {
    if (!ids.length) return [];
    const r = await db.query<PublicFruitRow>(
      `select f.id, f.species, f.name, f.created_at,
              case when t.visibility = 'public' and t.deleted_at is null then t.id end as tree_id,
              coalesce(t.visibility = 'public' and t.deleted_at is null, false) as tree_public,
              case when t.visibility = 'public' and t.deleted_at is null then (select tr.code from tree_records tr where tr.individual_id = t.id) end as code
         from individuals f left join individuals t on t.id = f.tree_id and t.kind = 'tree'
        where f.id = any($1::uuid[]) and f.kind = 'fruit' and f.visibility = 'public' and f.deleted_at is null`,
      [ids],
    );
    return r.rows.map((x) => ({ ...x, created_at: new Date(x.created_at) }));
  },

  /** Up to `max` photos of the fruit: those in `preferred` first in its order, then oldest first. */
  async photos(db: Queryable, fruitId: string, preferred: readonly string[], max: number): Promise<{ id: string; cid: string }[]> {
    const r = await db.query<{ id: string; cid: string }>(
      `select id, cid from images where individual_id = $1 order by array_position($2::uuid[], id) nulls last, created_at, id limit $3`,
      [fruitId, preferred, max],
    );
    return r.rows;
  },

  /** How many photos the server holds for the fruit. */
  async photoCount(db: Queryable, fruitId: string): Promise<number> {
    const r = await db.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [fruitId]);
    return r.rows[0]?.n ?? 0;
  },

  /** The fruit's newest evidence record; null when it has none. */
  async latestRecord(db: Queryable, fruitId: string): Promise<{ record_cid: string; record_hash: string } | null> {
    const r = await db.query<{ record_cid: string; record_hash: string }>(
      `select record_cid, record_hash from entity_records where entity_type = 'fruit' and entity_id = $1 order by created_at desc limit 1`,
      [fruitId],
    );
    return r.rows[0] ?? null;
  },

  async insertToken(db: Queryable, t: { hash: string; candidates: readonly string[]; expiresAt: Date }): Promise<void> {
    await db.query('insert into fruit_scan_tokens (hash, candidates, expires_at) values ($1, $2, $3)', [
      t.hash,
      JSON.stringify(t.candidates),
      t.expiresAt,
    ]);
  },

  /** Deletes every token that expired more than a day ago. */
  async sweepTokens(db: Queryable): Promise<void> {
    await db.query(`delete from fruit_scan_tokens where expires_at < now() - interval '1 day'`);
  },

  async token(db: Queryable, hash: string): Promise<FruitScanTokenRow | null> {
    const r = await db.query<FruitScanTokenRow>('select candidates, consumed_at, expires_at from fruit_scan_tokens where hash = $1', [
      hash,
    ]);
    const row = r.rows[0];
    return row
      ? {
          candidates: row.candidates,
          consumed_at: row.consumed_at ? new Date(row.consumed_at) : null,
          expires_at: new Date(row.expires_at),
        }
      : null;
  },

  /** Records the choice if the token is still unconsumed and unexpired; answers whether this call made it. */
  async choose(db: Queryable, hash: string, fruitId: string): Promise<boolean> {
    const r = await db.query(
      'update fruit_scan_tokens set consumed_at = now(), chosen_id = $2 where hash = $1 and consumed_at is null and expires_at > now()',
      [hash, fruitId],
    );
    return r.affectedRows === 1;
  },
};

export type FruitPublicRepo = typeof fruitPublicRepo;
