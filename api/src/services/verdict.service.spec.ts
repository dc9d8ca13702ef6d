import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createVerdictService, type VerdictDeps } from './verdict.service.js';

const caller = { account_id: 'owner-1' } as Caller;
const db = strictMock<Queryable>({}, 'db');

function service(kind: 'tree' | 'fruit' | 'animal' | null, decision: 'allow' | 'not_found' = 'allow', over: Partial<VerdictDeps> = {}) {
  const ownKind = vi.fn(async () => kind);
  const upsert = vi.fn(async () => {});
  const access = vi.fn(async () => ({ decision, standing: null }));
  const queueLearning = vi.fn(async () => ({ queued: false }));
  const warn = vi.fn();
  const deps: VerdictDeps = {
    db,
    queries: strictMock({ ownKind }, 'queries'),
    labels: strictMock({ upsert }, 'labels'),
    access: access as unknown as VerdictDeps['access'],
    queueLearning,
    logger: { warn },
    ...over,
  };
  return { s: createVerdictService(deps), ownKind, upsert, access, queueLearning, warn };
}

describe('verdict service', () => {
  it('stores the owner’s label with a corrected id the owner may label with, then asks the learning loop', async () => {
    const { s, ownKind, upsert, access, queueLearning } = service('animal');
    expect(await s.record(caller, { query_id: 'q-1', verdict: 'wrong', correct_id: 'cow-2' })).toEqual({ correct_id: 'cow-2' });
    expect(ownKind).toHaveBeenCalledWith(db, 'q-1', scopeOfCaller(caller));
    expect(access).toHaveBeenCalledWith(db, 'owner-1', 'cow-2', 'animal', 'owner');
    expect(upsert).toHaveBeenCalledWith(db, scopeOfCaller(caller), { query_id: 'q-1', verdict: 'wrong', correct_id: 'cow-2' });
    expect(queueLearning).toHaveBeenCalledWith(scopeOfCaller(caller), 'animal');
  });

  it('keeps the label but drops a corrected id the caller may not use (another account’s, or missing), silently', async () => {
    const { s, upsert } = service('tree', 'not_found');
    expect(await s.record(caller, { query_id: 'q-1', verdict: 'other', correct_id: 'their-tree' })).toEqual({ correct_id: null });
    expect(upsert).toHaveBeenCalledWith(db, scopeOfCaller(caller), expect.objectContaining({ correct_id: null, verdict: 'other' }));
  });

  it('answers another account’s or a missing query as not found, writing nothing', async () => {
    const { s, upsert, access, queueLearning } = service(null);
    await expect(s.record(caller, { query_id: 'q-x', verdict: 'correct', correct_id: 'cow-1' })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(access).not.toHaveBeenCalled();
    expect(upsert).not.toHaveBeenCalled();
    expect(queueLearning).not.toHaveBeenCalled();
  });

  it('answers a query of another kind than the route’s as not found', async () => {
    const { s, upsert } = service('fruit');
    await expect(s.record(caller, { query_id: 'q-1', verdict: 'correct', kind: 'animal' })).rejects.toMatchObject({ status: 404 });
    expect(upsert).not.toHaveBeenCalled();
  });

  it('never fails a stored label because the learning check failed; it is logged', async () => {
    const { s, upsert, warn } = service('fruit', 'allow', {
      queueLearning: vi.fn(async () => {
        throw new Error('queue down');
      }),
    });
    expect(await s.record(caller, { query_id: 'q-1', verdict: 'unknown_ok' })).toEqual({ correct_id: null });
    expect(upsert).toHaveBeenCalledOnce();
    expect(warn).toHaveBeenCalledWith({ err: expect.any(Error) }, 'learning loop check failed');
  });
});
