import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { JobRecord } from '../../../shared/src/ports/queue.port.js';
import type { PooledVersion } from '../../../shared/src/repos/calibration-pool.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createCalibrationPoolService, type CalibrationPoolDeps } from './calibration-pool.service.js';

const db = strictMock<Queryable>({}, 'db');
type Pool = CalibrationPoolDeps['pool'];
type Queue = CalibrationPoolDeps['queue'];

function service(over: Partial<CalibrationPoolDeps> = {}) {
  return createCalibrationPoolService({
    db,
    pool: strictMock<Pool>({}, 'pool'),
    queue: strictMock<Queue>({}, 'queue'),
    pooling: true,
    ...over,
  });
}

const version = (over: Partial<PooledVersion>): PooledVersion => ({
  id: 1,
  engine_version: 'e1',
  kind: 'tree',
  species: 'coffee_robusta',
  band: 'small',
  params: { a: 1 },
  report: {},
  shadow: null,
  status: 'shadow',
  created_at: '2026-01-01T00:00:00.000Z',
  promoted_at: null,
  retired_at: null,
  ...over,
});

describe('calibration pool service: running a fit', () => {
  it('refuses with 409 pooling_off when pooling is switched off, without queueing', async () => {
    await expect(service({ pooling: false }).run('op')).rejects.toMatchObject({ status: 409, code: 'pooling_off' });
  });

  it('queues a fit for the operator, waits for it and answers its result', async () => {
    const result = { gathered: 12, cells: [] };
    const enqueue = vi.fn(async () => 'job-1');
    const waitFor = vi.fn(async () => ({ id: 'job-1', state: 'completed', result }) as unknown as JobRecord);
    expect(await service({ queue: strictMock<Queue>({ enqueue, waitFor }) }).run('op-1')).toBe(result);
    expect(enqueue).toHaveBeenCalledWith('calibration_pool', { requested_by: 'op-1' });
    expect(waitFor).toHaveBeenCalledWith('job-1', 10 * 60_000);
  });

  it('answers 500 when the fit failed or did not finish in time', async () => {
    for (const rec of [null, { id: 'job-1', state: 'failed' }, { id: 'job-1', state: 'active' }]) {
      const queue = strictMock<Queue>({ enqueue: async () => 'job-1', waitFor: async () => rec as JobRecord | null });
      await expect(service({ queue }).run('op')).rejects.toMatchObject({ status: 500, code: 'internal' });
    }
  });
});

describe('calibration pool service: versions', () => {
  it('names each owner set aside, once per account, and leaves an unknown one unnamed', async () => {
    const versions = [
      version({
        id: 2,
        report: {
          set_aside: [
            { owner: 'a', why: 'few' },
            { owner: 'b', why: 'few' },
          ],
        },
      }),
      version({ id: 1, report: { set_aside: [{ owner: 'a', why: 'odd' }] } }),
      version({ id: 0, report: {} }),
    ];
    const accountNames = vi.fn(async () => new Map([['a', 'alice']]));
    const s = service({ pool: strictMock<Pool>({ list: async () => versions, accountNames }) });
    const listed = await s.list();
    expect(accountNames).toHaveBeenCalledWith(db, ['a', 'b']);
    expect(listed.map((v) => v.report.set_aside)).toEqual([
      [
        { owner: 'a', why: 'few', username: 'alice' },
        { owner: 'b', why: 'few', username: null },
      ],
      [{ owner: 'a', why: 'odd', username: 'alice' }],
      [],
    ]);
  });

  it('promotes a version that has parameters; a missing one or one without is 404 and nothing is written', async () => {
    const promote = vi.fn(async () => {});
    const byId = vi.fn(async (_db: Queryable, id: number) =>
      id === 1 ? version({ id: 1 }) : id === 2 ? version({ id: 2, params: null }) : null,
    );
    const s = service({ pool: strictMock<Pool>({ byId, promote }) });
    expect(await s.promote(1)).toEqual({ id: 1, status: 'serving' });
    await expect(s.promote(2)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(s.promote(3)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(promote).toHaveBeenCalledTimes(1);
    expect(promote).toHaveBeenCalledWith(db, 1);
  });

  it('rolls back only the serving version (409 otherwise, 404 when missing), answering what serves after', async () => {
    const rollback = vi.fn(async () => 7);
    const byId = vi.fn(async (_db: Queryable, id: number) =>
      id === 1 ? version({ id: 1, status: 'serving' }) : id === 2 ? version({ id: 2, status: 'shadow' }) : null,
    );
    const s = service({ pool: strictMock<Pool>({ byId, rollback }) });
    expect(await s.rollback(1)).toEqual({ id: 1, status: 'rolled_back', serving: 7 });
    await expect(s.rollback(2)).rejects.toMatchObject({ status: 409, code: 'calibration_not_serving' });
    await expect(s.rollback(3)).rejects.toMatchObject({ status: 404 });
    expect(rollback).toHaveBeenCalledTimes(1);
  });
});

describe('calibration pool service: an owner’s sharing', () => {
  it('reads and sets whether the owner contributes, on the owner’s own rows', async () => {
    const setContributes = vi.fn(async () => ({ deleted: 4 }));
    const s = service({
      pool: strictMock<Pool>({ contributes: async () => true, samplesOfOwner: async () => 9, setContributes }),
    });
    const owner = scopeOfCaller({ account_id: 'o-1', token_hash: 'h' });
    expect(await s.sharing(owner)).toEqual({ contribute: true, samples: 9 });
    expect(await s.setSharing(owner, false)).toEqual({ contribute: false, deleted: 4 });
    expect(setContributes).toHaveBeenCalledWith(db, owner, false);
  });
});
