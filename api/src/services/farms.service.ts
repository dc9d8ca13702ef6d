import { ERRORS } from '../../../shared/src/domain/errors.js';
import { encodeBoundaryRecord, type EncodedSideRecord, type Polygon } from '../../../shared/src/evidence/side-record.js';
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import { ownedBy } from '../../../shared/src/access/owned.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { bindFarm, resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { writeSideRecord } from '../../../shared/src/repos/evidence/side-record-store.js';
import type { farmsRepo } from '../../../shared/src/repos/farms.repo.js';
import type { Database, Queryable } from '../../../shared/src/ports/database.port.js';

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

/** The ports boundaries use. */
export interface FarmsDeps {
  db: Pick<Database, 'transaction'> & Queryable;
  farms: typeof farmsRepo;
  /** Which farm is the caller's (entity-owner), and binding a new one to the caller. */
  owners: { resolve: typeof resolveEntity; bind: typeof bindFarm };
  /** The canonical record of a boundary version, written in the same transaction. */
  writeRecord: typeof writeSideRecord;
  /** Pins a record to Kubo; null when no pinner is configured. */
  pin: ((encoded: EncodedSideRecord) => Promise<unknown>) | null;
  /** EVIDENCE_FRUIT_AND_BOUNDARIES: whether a boundary version gets a record. */
  recordBoundaries: boolean;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Farm boundaries. Farms are per account: `farm_id` names the caller's own farm, bound when the
 * caller enrols an individual with that farm_id or first sets its boundary. Two accounts can each
 * have an `orchard-1`; neither can see or take over the other's.
 */
export function createFarmsService(deps: FarmsDeps) {
  const { db, farms } = deps;

  /** The caller's farm's chain id (its key in entity_records), binding it first when `bind`. */
  async function ownedFarm(tx: Queryable, scope: OwnerScope, farmId: string, bind: boolean): Promise<string> {
    const farm = ownedBy(
      (await deps.owners.resolve(tx, 'farm', farmId, { owner: scope })) ?? (bind ? await deps.owners.bind(tx, scope, farmId) : null),
      scope,
    );
    if (!farm) throw ERRORS.notFound();
    return farm.entity_id;
  }

  async function get(scope: OwnerScope, farmId: string): Promise<FarmBoundary> {
    const chainId = await ownedFarm(db, scope, farmId, false);
    const row = await farms.boundary(db, chainId);
    const rec = row.boundary ? await farms.latestBoundaryRecord(db, chainId) : null;
    // The record speaks for the boundary only when it is of the version now stored.
    const current = rec && row.updated_at && rec.created_at.getTime() >= row.updated_at.getTime() ? rec : null;
    return {
      farm_id: farmId,
      boundary: row.boundary,
      updated_at: iso(row.updated_at),
      ...(current
        ? { evidence: 'recorded' as const, record_cid: current.record_cid, record_hash: current.record_hash }
        : { evidence: 'server_only' as const }),
    };
  }

  return {
    get,

    /** Replace the boundary; with the evidence switch on, the new version also gets a record and a chain event. */
    async put(scope: OwnerScope, farmId: string, boundary: Polygon): Promise<FarmBoundary> {
      const encoded = await db.transaction(async (tx) => {
        const chainId = await ownedFarm(tx, scope, farmId, true);
        const now = await farms.setBoundary(tx, chainId, boundary);
        if (!deps.recordBoundaries) return null;
        const enc = encodeBoundaryRecord({ farm_id: farmId, boundary, created_at: now });
        await deps.writeRecord(tx, {
          entity_type: 'farm',
          entity_id: chainId,
          owner_id: scope.ownerId,
          encoded: enc,
          body_type: 'boundary',
        });
        return enc;
      });
      if (encoded && deps.pin) {
        await deps.pin(encoded).catch((err: unknown) => deps.logger.warn({ err, farm: farmId }, 'pinning to Kubo failed'));
      }
      return get(scope, farmId);
    },
  };
}

export type FarmsService = ReturnType<typeof createFarmsService>;
