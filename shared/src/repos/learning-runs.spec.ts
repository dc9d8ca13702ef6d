import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { listRuns, recordRollback, recordRun } from './learning-runs.js';

/** The learning loop's record, written and read on both databases the service runs on. */
describe.each(BOTH_DATABASES)('learning runs on $name', ({ open }) => {
  let opened: OpenDatabase;
  const owner = scopeOfJob({ owner_id: randomUUID() });

  beforeAll(async () => {
    opened = await open();
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('records a rollback as a finished rolled_back run beside the others', async () => {
    const { db } = opened;
    await recordRun(db, owner, { kind: 'animal', jobId: 'j1', status: 'adopted', decision: { reason: 'better' } });
    await recordRollback(db, owner, {
      kind: 'animal',
      trigger: { command: 'rollback' },
      decision: { rolled_back: 2, adopted: 1 },
    });
    const runs = await listRuns(db, owner, 'animal');
    expect(runs.map((r) => [r.status, r.trigger, r.decision])).toEqual([
      ['rolled_back', { command: 'rollback' }, { rolled_back: 2, adopted: 1 }],
      ['adopted', { manual: true }, { reason: 'better' }],
    ]);
    expect(runs[0]!.finished_at).not.toBeNull();
    expect(await listRuns(db, owner, 'fruit')).toEqual([]);
    expect(await listRuns(db, scopeOfJob({ owner_id: randomUUID() }), 'animal')).toEqual([]);
  });
});
