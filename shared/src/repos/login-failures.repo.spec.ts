import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { loginFailuresRepo as repo } from './login-failures.repo.js';

describe.each(BOTH_DATABASES)('login failures on $name', ({ open }) => {
  const opened = openDatabase(open);

  it('counts failures per key, locks one for a while, and forgets cleared keys', async () => {
    const { db } = opened;
    expect(await repo.state(db, ['ip:1', 'user:an'], 900)).toEqual([]);
    await repo.count(db, ['ip:1', 'user:an'], 900);
    const second = await repo.count(db, ['ip:1'], 900);
    expect(second).toEqual([{ key: 'ip:1', failures: 2 }]);
    await repo.lock(db, 'ip:1', 30);
    const state = await repo.state(db, ['ip:1', 'user:an', 'user:other'], 900);
    const ip = state.find((r) => r.key === 'ip:1')!;
    expect(ip.failures).toBe(2);
    expect(ip.s).toBeGreaterThanOrEqual(29);
    expect(ip.s).toBeLessThanOrEqual(30);
    expect(state.find((r) => r.key === 'user:an')).toEqual({ key: 'user:an', failures: 1, s: null });
    await repo.clear(db, ['ip:1']);
    expect((await repo.state(db, ['ip:1', 'user:an'], 900)).map((r) => r.key)).toEqual(['user:an']);
  });

  it('starts a count again once the last failure is older than the window, and no longer reports it', async () => {
    const { db } = opened;
    await db.query(`insert into login_failures (key, failures, updated_at) values ('ip:old', 9, now() - interval '2 hours')`);
    expect(await repo.state(db, ['ip:old'], 900)).toEqual([]);
    expect(await repo.count(db, ['ip:old'], 900)).toEqual([{ key: 'ip:old', failures: 1 }]);
  });
});
