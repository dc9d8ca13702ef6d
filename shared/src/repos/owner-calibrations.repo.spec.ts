import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { ownerCalibrationsRepo } from './owner-calibrations.repo.js';

describe.each(BOTH_DATABASES)('owner calibrations on $name', ({ open }) => {
  const opened = openDatabase(open);

  it('stores an owner’s fits per pipeline and reads the newest of one, a fit without params included', async () => {
    const { db } = opened;
    const owner = scopeOfJob({ owner_id: randomUUID() });
    await ownerCalibrationsRepo.insert(db, owner, {
      kind: 'animal',
      pipeline: 'v1|base|all',
      params: { t: 1 },
      report: { n: 10 },
    });
    await ownerCalibrationsRepo.insert(db, owner, { kind: 'animal', pipeline: 'v1|base|all', params: null, report: { n: 3 } });
    await ownerCalibrationsRepo.insert(db, owner, {
      kind: 'animal',
      pipeline: 'v2|base|all',
      params: { t: 2 },
      report: { n: 20 },
    });
    const latest = await ownerCalibrationsRepo.latest(db, owner, 'animal', 'v1|base|all');
    expect(latest).toMatchObject({ params: null, report: { n: 3 } });
    expect(new Date(latest!.created_at).getTime()).not.toBeNaN();
    expect(await ownerCalibrationsRepo.latest(db, owner, 'animal', 'v2|base|all')).toMatchObject({ params: { t: 2 }, report: { n: 20 } });
    expect(await ownerCalibrationsRepo.latest(db, owner, 'tree', 'v1|base|all')).toBeNull();
    expect(await ownerCalibrationsRepo.latest(db, scopeOfJob({ owner_id: randomUUID() }), 'animal', 'v1|base|all')).toBeNull();
    // Whatever the pipeline, the newest of the kind (the learning page's calibration).
    expect(await ownerCalibrationsRepo.newestOfKind(db, owner, 'animal')).toMatchObject({
      pipeline: 'v2|base|all',
      params: { t: 2 },
      report: { n: 20 },
    });
    expect(await ownerCalibrationsRepo.newestOfKind(db, owner, 'fruit')).toBeNull();
  });
});
