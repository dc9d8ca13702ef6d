import { describe, expect, it, vi } from 'vitest';
import type { Polygon } from '../../../shared/src/evidence/side-record.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { scopeOfCaller, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createFarmsService, type FarmsDeps } from './farms.service.js';

const square: Polygon = {
  type: 'Polygon',
  coordinates: [
    [
      [105.8, 21],
      [105.81, 21],
      [105.81, 21.01],
      [105.8, 21.01],
      [105.8, 21],
    ],
  ],
} as Polygon;
const at = new Date('2026-11-28T10:00:00Z');
/** The caller's own records, as the route makes them from the token. */
const ME = scopeOfCaller({ account_id: 'owner-1', token_hash: 'h' });

function service(owner: string | null, over: Partial<FarmsDeps> = {}) {
  const tx = strictMock<Queryable>({}, 'tx');
  // The farm as entity-owner knows it; binding makes the caller's farm exist from then on.
  let farm = owner ? { entity_id: `${owner}/trai`, owner_id: owner } : null;
  const resolve = vi.fn(async () => farm);
  const bind = vi.fn(async (_q: Queryable, who: OwnerScope) => (farm = { entity_id: `${who.ownerId}/trai`, owner_id: who.ownerId }));
  const setBoundary = vi.fn(async () => at);
  const boundary = vi.fn(async () => ({ boundary: square, updated_at: at }));
  const latestBoundaryRecord = vi.fn(async () => ({ record_cid: 'cid-r', record_hash: 'h', created_at: at }));
  const writeRecord = vi.fn(async () => ({}) as never);
  const pin = vi.fn(async () => {});
  const warn = vi.fn();
  const deps: FarmsDeps = {
    db: strictMock<FarmsDeps['db']>({ transaction: vi.fn(async (fn: (t: Queryable) => Promise<unknown>) => fn(tx)) as never }, 'db'),
    farms: strictMock({ setBoundary, boundary, latestBoundaryRecord }, 'farms repo'),
    owners: { resolve: resolve as never, bind: bind as never },
    writeRecord,
    pin,
    recordBoundaries: true,
    logger: { warn },
    ...over,
  };
  return { s: createFarmsService(deps), tx, resolve, bind, setBoundary, writeRecord, pin, warn };
}

describe('farms service', () => {
  it('answers another account’s farm, or one never bound, as not found on read', async () => {
    const theirs = service('someone-else');
    await expect(theirs.s.get(ME, 'trai')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    const none = service(null);
    await expect(none.s.get(ME, 'trai')).rejects.toMatchObject({ status: 404 });
    // Reading never binds a farm.
    expect(none.bind).not.toHaveBeenCalled();
  });

  it('binds a new farm to the caller on first boundary, stores it and records the version, then pins it', async () => {
    const { s, tx, bind, setBoundary, writeRecord, pin } = service(null);
    const out = await s.put(ME, 'trai', square);
    expect(bind).toHaveBeenCalledWith(tx, ME, 'trai');
    expect(setBoundary).toHaveBeenCalledWith(tx, 'owner-1/trai', square);
    expect(writeRecord).toHaveBeenCalledWith(
      tx,
      expect.objectContaining({ entity_type: 'farm', entity_id: 'owner-1/trai', body_type: 'boundary' }),
    );
    expect(pin).toHaveBeenCalledOnce();
    expect(out).toMatchObject({ farm_id: 'trai', evidence: 'recorded', record_cid: 'cid-r', updated_at: '2026-11-28T10:00:00.000Z' });
  });

  it('refuses to set another account’s farm’s boundary, writing nothing', async () => {
    const { s, setBoundary, writeRecord, pin } = service('someone-else');
    await expect(s.put(ME, 'trai', square)).rejects.toMatchObject({ status: 404 });
    expect(setBoundary).not.toHaveBeenCalled();
    expect(writeRecord).not.toHaveBeenCalled();
    expect(pin).not.toHaveBeenCalled();
  });

  it('keeps a boundary on the server only while the evidence switch is off', async () => {
    const { s, writeRecord, pin } = service('owner-1', { recordBoundaries: false });
    await s.put(ME, 'trai', square);
    expect(writeRecord).not.toHaveBeenCalled();
    expect(pin).not.toHaveBeenCalled();
  });

  it('stores the boundary even when pinning fails, and says so in the log', async () => {
    const { s, warn } = service('owner-1', {
      pin: vi.fn(async () => {
        throw new Error('kubo down');
      }),
    });
    expect((await s.put(ME, 'trai', square)).boundary).toEqual(square);
    expect(warn).toHaveBeenCalledWith({ err: expect.any(Error), farm: 'trai' }, 'pinning to Kubo failed');
  });

  it('calls a boundary server-only when its newest record is of an older version', async () => {
    const { s } = service('owner-1', {
      farms: strictMock<FarmsDeps['farms']>({
        boundary: vi.fn(async () => ({ boundary: square, updated_at: at })),
        latestBoundaryRecord: vi.fn(async () => ({ record_cid: 'old', record_hash: 'h', created_at: new Date(at.getTime() - 1000) })),
      }),
    });
    expect(await s.get(ME, 'trai')).toEqual({
      farm_id: 'trai',
      boundary: square,
      updated_at: at.toISOString(),
      evidence: 'server_only',
    });
  });
});
