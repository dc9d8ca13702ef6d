import { describe, expect, it, vi } from 'vitest';
import type { AnchorBackend } from '../../../shared/src/ports/anchor.port.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { AnchorRow } from '../../../shared/src/repos/evidence/anchor-store.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createAnchorService, type AnchorDeps } from './anchor.service.js';
import type { JobOutcome } from './jobs.service.js';

type Anchors = AnchorDeps['anchors'];
type Jobs = AnchorDeps['jobs'];
const db = strictMock<Queryable>({}, 'db');
const caller: Caller = { account_id: 'owner-1', username: 'owner', is_admin: false, token_hash: 'h' };
const TREE = '0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2d';
const EVENT = 'A1B2C3D4-0000-4000-8000-000000000001';
const entity: ResolvedEntity = { entity_type: 'tree', entity_id: TREE, owner_id: 'owner-1', farm_id: null };
const done: JobOutcome = { done: true, result: { status: 'confirmed' }, job_id: 'j' };

function service(over: Partial<AnchorDeps> = {}) {
  return createAnchorService({
    db,
    backend: strictMock<AnchorBackend>({ kind: 'local' }, 'backend'),
    refresh: { pollS: 20, timeoutS: 3600 },
    anchors: strictMock<Anchors>({}, 'anchors'),
    owned: async () => entity,
    jobs: strictMock<Jobs>({}, 'jobs'),
    ...over,
  });
}

describe('anchor service: requesting an anchoring', () => {
  it('answers an entity the caller does not own exactly as a missing one, 404, reading nothing more', async () => {
    const owned = vi.fn(async () => null);
    await expect(service({ owned }).request(caller, 'tree', TREE, EVENT)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(owned).toHaveBeenCalledWith('tree', TREE, caller);
  });

  it('answers an event id that is not a UUID 404 without asking the database', async () => {
    await expect(service().request(caller, 'tree', TREE, 'not-an-event')).rejects.toMatchObject({ status: 404 });
  });

  it('answers an event that is not in the entity’s chain 404 and runs no job', async () => {
    const anchors = strictMock<Anchors>({ chainSizeWith: async () => null });
    await expect(service({ anchors }).request(caller, 'tree', TREE, EVENT)).rejects.toMatchObject({ status: 404 });
  });

  it('runs the anchor job for the whole chain, with one job id per root size, backend and earlier failures', async () => {
    const chainSizeWith = vi.fn(async () => 7);
    const failedAt = vi.fn().mockResolvedValueOnce(0).mockResolvedValueOnce(0).mockResolvedValueOnce(1);
    const run = vi.fn(async () => done);
    const s = service({ anchors: strictMock<Anchors>({ chainSizeWith, failedAt }), jobs: strictMock<Jobs>({ run }) });
    expect(await s.request(caller, 'tree', TREE, EVENT)).toBe(done);
    await s.request(caller, 'tree', TREE, EVENT);
    await s.request(caller, 'tree', TREE, EVENT);
    expect(chainSizeWith).toHaveBeenCalledWith(db, 'tree', TREE, EVENT.toLowerCase());
    expect(failedAt).toHaveBeenCalledWith(db, 'tree', TREE, 7, 'local');
    const [first, again, afterFailure] = run.mock.calls as unknown as [
      [string, Record<string, unknown>, string],
      [string, unknown, string],
      [string, unknown, string],
    ];
    expect(first[0]).toBe('anchor');
    expect(first[1]).toEqual({ owner_id: 'owner-1', entity_type: 'tree', entity_id: TREE, event_id: EVENT.toLowerCase() });
    expect(first[2]).toMatch(/^anchor-[0-9a-f]{24}-7-local-0$/);
    expect(again[2]).toBe(first[2]);
    expect(afterFailure[2]).toBe(first[2].replace(/-0$/, '-1'));
  });
});

describe('anchor service: reading anchors', () => {
  const row = (status: AnchorRow['status']): AnchorRow => ({
    id: 'a-1',
    backend: 'cardano',
    status,
    size: 3,
    root_hex: 'ab',
    tx_hash: 'tx',
    explorer_url: null,
    confirmations: status === 'confirmed' ? 5 : 0,
    checkpoint_seq: null,
    error: null,
    ttl_slot: null,
    entity_type: 'tree',
    entity_id: TREE,
    tx_cbor_hex: null,
    created_at: new Date('2026-11-01T00:00:00Z'),
    updated_at: new Date('2026-11-02T00:00:00Z'),
  });

  it('answers the anchor of a root as refreshed through the backend', async () => {
    const refresh = vi.fn(async () => row('confirmed'));
    const backend = strictMock<AnchorBackend>({ kind: 'cardano' });
    const s = service({ backend, anchors: strictMock<Anchors>({ find: async () => row('submitted'), refresh }) });
    const got = await s.current('tree', TREE, 3);
    expect(got?.view).toMatchObject({ anchor_id: 'a-1', status: 'confirmed', confirmations: 5, updated_at: '2026-11-02T00:00:00.000Z' });
    expect(refresh).toHaveBeenCalledWith(db, backend, row('submitted'), { pollS: 20, timeoutS: 3600 });
  });

  it('answers null for a root never anchored, without asking the backend', async () => {
    expect(await service({ anchors: strictMock<Anchors>({ find: async () => undefined }) }).current('tree', TREE)).toBeNull();
  });

  it('reports the backend’s health and every status, zero when it has no anchors', async () => {
    const byStatus = vi.fn(async () => ({ confirmed: 4, failed: 1 }));
    const backend = strictMock<AnchorBackend>({ kind: 'local', health: async () => ({ ok: true, detail: { seq: 9 } }) });
    expect(await service({ backend, anchors: strictMock<Anchors>({ byStatus }) }).status()).toEqual({
      ok: true,
      backend: 'local',
      healthy: true,
      detail: { seq: 9 },
      anchors: { pending: 0, submitted: 0, confirmed: 4, failed: 1 },
    });
    expect(byStatus).toHaveBeenCalledWith(db, 'local');
  });
});
