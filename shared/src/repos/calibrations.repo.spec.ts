import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { calibrationsRepo } from './calibrations.repo.js';

describe.each(BOTH_DATABASES)('calibrations on $name', ({ open }) => {
  let opened: OpenDatabase;

  beforeAll(async () => {
    opened = await open();
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('stores a kind’s refits and reads the newest of each kind', async () => {
    const { db } = opened;
    await calibrationsRepo.insert(db, 'tree', { matchThreshold: 0.5 }, { auc: 0.8 });
    await calibrationsRepo.insert(db, 'tree', { matchThreshold: 0.6 }, { auc: 0.9 });
    await calibrationsRepo.insert(db, 'animal', { matchThreshold: 0.7 }, { auc: 0.7 });
    const rows = await calibrationsRepo.newestPerKind(db);
    expect(rows.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      { kind: 'animal', params: { matchThreshold: 0.7 } },
      { kind: 'tree', params: { matchThreshold: 0.6 } },
    ]);
    const report = await db.query(`select report from calibrations where kind = 'tree' order by id desc limit 1`);
    expect(report.rows[0]).toEqual({ report: { auc: 0.9 } });
  });
});
