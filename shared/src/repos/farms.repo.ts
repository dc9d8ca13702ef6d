/**
 * Statements on a farm's boundary (`farms.boundary`) and its recorded versions. Which farm is the
 * caller's is entity-owner's question (repos/evidence/entity-owner.ts); these take the farm's
 * chain id once that is settled.
 */
import type { Polygon } from '../evidence/side-record.js';
import type { Queryable } from '../ports/database.port.js';

export interface BoundaryRecordRow {
  record_cid: string;
  record_hash: string;
  created_at: Date;
}

export const farmsRepo = {
  /** The farm's boundary and when it was last set (null: never). */
  async boundary(db: Queryable, chainId: string): Promise<{ boundary: Polygon | null; updated_at: Date | null }> {
    const r = await db.query<{ boundary: Polygon | null; boundary_updated_at: Date | string | null }>(
      'select boundary, boundary_updated_at from farms where chain_id = $1',
      [chainId],
    );
    const row = r.rows[0];
    return { boundary: row?.boundary ?? null, updated_at: row?.boundary_updated_at ? new Date(row.boundary_updated_at) : null };
  },

  /** Replaces the farm's boundary; returns the database's time of the change (the record is dated by it). */
  async setBoundary(db: Queryable, chainId: string, boundary: Polygon): Promise<Date> {
    const r = await db.query<{ at: Date | string }>(
      'update farms set boundary = $2, boundary_updated_at = now() where chain_id = $1 returning boundary_updated_at as at',
      [chainId, JSON.stringify(boundary)],
    );
    return new Date(r.rows[0]!.at);
  },

  /** The newest canonical record of the farm's boundary, if any. */
  async latestBoundaryRecord(db: Queryable, chainId: string): Promise<BoundaryRecordRow | null> {
    const r = await db.query<{ record_cid: string; record_hash: string; created_at: Date | string }>(
      `select record_cid, record_hash, created_at from entity_records where entity_type = 'farm' and entity_id = $1 order by created_at desc limit 1`,
      [chainId],
    );
    const row = r.rows[0];
    return row ? { ...row, created_at: new Date(row.created_at) } : null;
  },
};
