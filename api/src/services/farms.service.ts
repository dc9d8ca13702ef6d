import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { encodeBoundaryRecord, type Polygon } from '../../../shared/src/evidence/side-record.js';
import { bindFarm, resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { pinSideRecord, writeSideRecord } from '../../../shared/src/repos/evidence/side-record-store.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';

export interface FarmBoundary {
  farm_id: string;
  boundary: Polygon | null;
  updated_at: string | null;
  /** server_only unless EVIDENCE_FRUIT_AND_BOUNDARIES is on and this version got a record. */
  evidence: 'server_only' | 'recorded';
  record_cid?: string;
  record_hash?: string;
}

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : d == null ? null : String(d));

/**
 * Farm boundaries. Farms are per account: `farm_id` names the caller's own farm, bound when the
 * caller enrols an individual with that farm_id or first sets its boundary. Two accounts can each
 * have an `orchard-1`; neither can see or take over the other's.
 */
export function createFarmsService(c: Container) {
  const { db } = c;

  /** The caller's farm's chain id (its key in entity_records), binding it first when `bind`. */
  async function ownedFarm(tx: Queryable, callerId: string, farmId: string, bind: boolean): Promise<string> {
    const farm = (await resolveEntity(tx, 'farm', farmId, { callerId })) ?? (bind ? await bindFarm(tx, callerId, farmId) : null);
    if (!farm || farm.owner_id !== callerId) throw ERRORS.notFound();
    return farm.entity_id;
  }

  async function latestRecord(q: Queryable, farmId: string) {
    const r = await q.query<{ record_cid: string; record_hash: string; created_at: Date }>(
      `select record_cid, record_hash, created_at from entity_records where entity_type = 'farm' and entity_id = $1 order by created_at desc limit 1`,
      [farmId],
    );
    return r.rows[0] ?? null;
  }

  async function get(callerId: string, farmId: string): Promise<FarmBoundary> {
    const chainId = await ownedFarm(db, callerId, farmId, false);
    const r = await db.query<{ boundary: Polygon | null; boundary_updated_at: Date | null }>(
      'select boundary, boundary_updated_at from farms where chain_id = $1',
      [chainId],
    );
    const row = r.rows[0]!;
    const rec = row.boundary ? await latestRecord(db, chainId) : null;
    // A record counts only if it is of the current version (written in the same transaction).
    const current = rec && row.boundary_updated_at && rec.created_at.getTime() >= row.boundary_updated_at.getTime() ? rec : null;
    return {
      farm_id: farmId,
      boundary: row.boundary,
      updated_at: iso(row.boundary_updated_at),
      ...(current
        ? { evidence: 'recorded' as const, record_cid: current.record_cid, record_hash: current.record_hash }
        : { evidence: 'server_only' as const }),
    };
  }

  return {
    get,

    /** Replace the boundary; with the evidence switch on, the new version also gets a record and a chain event. */
    async put(callerId: string, farmId: string, boundary: Polygon): Promise<FarmBoundary> {
      const encoded = await db.transaction(async (tx) => {
        const chainId = await ownedFarm(tx, callerId, farmId, true);
        const now = (await tx.query<{ now: Date }>('select now() as now')).rows[0]!.now;
        await tx.query('update farms set boundary = $2, boundary_updated_at = $3 where chain_id = $1', [
          chainId,
          JSON.stringify(boundary),
          now,
        ]);
        if (!c.config.EVIDENCE_FRUIT_AND_BOUNDARIES) return null;
        const enc = encodeBoundaryRecord({ farm_id: farmId, boundary, created_at: now });
        await writeSideRecord(tx, { entity_type: 'farm', entity_id: chainId, owner_id: callerId, encoded: enc, body_type: 'boundary' });
        return enc;
      });
      if (encoded && c.pinner) {
        await pinSideRecord({ blobs: c.blobs, pinner: c.pinner }, encoded).catch((err: unknown) =>
          c.logger.warn({ err, farm: farmId }, 'pinning to Kubo failed'),
        );
      }
      return get(callerId, farmId);
    },
  };
}

export type FarmsService = ReturnType<typeof createFarmsService>;
