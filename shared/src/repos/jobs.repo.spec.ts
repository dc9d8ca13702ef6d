import { beforeEach, describe, expect, it } from 'vitest';
import { scopeOfJob } from '../access/owner-scope.js';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { jobsRepo as repo } from './jobs.repo.js';

describe.each(BOTH_DATABASES)('jobs on $name', ({ name, open }) => {
  const opened = openDatabase(open);
  beforeEach(async () => {
    await opened.db.query('delete from jobs');
  });

  /** Stores a waiting job created `ageS` seconds ago (older claims first). */
  const add = async (id: string, data: Record<string, unknown> = {}, ageS = 0, jobName = 'enroll') => {
    await repo.insert(opened.db, { id, name: jobName, data, maxAttempts: 3, requestId: null });
    await opened.db.query(`update jobs set created_at = now() - ($2 || ' seconds')::interval where id = $1`, [id, String(ageS)]);
  };
  const row = async (id: string) => (await repo.get(opened.db, id))!;

  it('stores a waiting job once: enqueueing the same id again leaves the first row as it was', async () => {
    const { db } = opened;
    await repo.insert(db, { id: 'j1', name: 'enroll', data: { owner_id: 'a' }, maxAttempts: 3, requestId: 'req-1' });
    await repo.insert(db, { id: 'j1', name: 'identify', data: { owner_id: 'b' }, maxAttempts: 5, requestId: 'req-2' });
    const j = await row('j1');
    expect(j).toMatchObject({ id: 'j1', name: 'enroll', state: 'waiting', data: { owner_id: 'a' }, attempts: 0, request_id: 'req-1' });
    expect(j.result).toBeNull();
    expect(j.finished_at).toBeNull();
    expect(await repo.get(db, 'missing')).toBeNull();
  });

  it('claims the oldest due job of the given names once, counting the attempt, and null when none is left', async () => {
    const { db } = opened;
    await add('new', {}, 1);
    await add('old', {}, 30);
    await add('other-queue', {}, 60, 'video');
    await add('later', {}, 90);
    await db.query(`update jobs set run_after = now() + interval '1 hour' where id = 'later'`);
    const first = await repo.claim(db, ['enroll', 'identify'], 0);
    expect(first).toMatchObject({ id: 'old', state: 'active', attempts: 1 });
    expect((await repo.claim(db, ['enroll', 'identify'], 0))?.id).toBe('new');
    expect(await repo.claim(db, ['enroll', 'identify'], 0)).toBeNull();
    expect((await row('later')).state).toBe('waiting');
    expect((await repo.claim(db, ['video'], 0))?.id).toBe('other-queue');
  });

  it('never hands one job to two claimers at once', async () => {
    const { db } = opened;
    for (let i = 0; i < 6; i++) await add(`c${i}`, {}, 60 - i);
    const claimed = await Promise.all(Array.from({ length: 8 }, () => repo.claim(db, ['enroll'], 0)));
    const ids = claimed.filter((j) => j !== null).map((j) => j.id);
    expect(ids.sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect((await db.query<{ n: number }>(`select count(*)::int as n from jobs where attempts = 1`)).rows[0]!.n).toBe(6);
  });

  // PGlite has one connection: a query outside an open transaction waits for it, so only
  // PostgreSQL can show a row locked by another claimer being skipped rather than waited for.
  it.runIf(name === 'PostgreSQL')('skips a row another transaction holds instead of waiting for it', async () => {
    const { db } = opened;
    await add('held', {}, 60);
    await add('free', {}, 30);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db.transaction(async (tx) => {
      await tx.query(`select id from jobs where id = 'held' for update`);
      locked();
      await released;
    });
    await isLocked;
    try {
      expect((await repo.claim(db, ['enroll'], 0))?.id).toBe('free');
    } finally {
      release();
      await holder;
    }
    expect((await repo.claim(db, ['enroll'], 0))?.id).toBe('held');
  });

  it('skips an owner who already has the cap of active jobs on these names, never a job without an owner', async () => {
    const { db } = opened;
    await add('a-running', { owner_id: 'a' }, 100);
    await add('a-next', { owner_id: 'a' }, 90);
    await add('b-next', { owner_id: 'b' }, 80);
    await add('nobody', {}, 70);
    await add('a-elsewhere', { owner_id: 'a' }, 60, 'video');
    await db.query(`update jobs set state = 'active' where id in ('a-running', 'a-elsewhere')`);
    expect((await repo.claim(db, ['enroll'], 1))?.id).toBe('b-next');
    expect((await repo.claim(db, ['enroll'], 1))?.id).toBe('nobody');
    expect(await repo.claim(db, ['enroll'], 1)).toBeNull();
    // A cap of 2 (or none) lets a's next job through.
    expect((await repo.claim(db, ['enroll'], 2))?.id).toBe('a-next');
  });

  it('completes a job with its result, and completing it again changes nothing', async () => {
    const { db } = opened;
    await add('j', {}, 10);
    await repo.claim(db, ['enroll'], 0);
    await repo.complete(db, 'j', { answer: 42 });
    const done = await row('j');
    expect(done).toMatchObject({ state: 'completed', result: { answer: 42 }, attempts: 1 });
    expect(done.finished_at).not.toBeNull();
    await repo.complete(db, 'j', { answer: 42 });
    expect(await row('j')).toMatchObject({ state: 'completed', result: { answer: 42 }, attempts: 1 });
    expect(await repo.claim(db, ['enroll'], 0)).toBeNull();
  });

  it('puts a failed attempt back with its error, due after the delay, and fails a job for good', async () => {
    const { db } = opened;
    await add('soon', {}, 20);
    await add('later', {}, 10);
    await repo.claim(db, ['enroll'], 0);
    await repo.claim(db, ['enroll'], 0);
    await repo.retryLater(db, 'soon', { message: 'flaky' }, 0);
    await repo.retryLater(db, 'later', { message: 'busy' }, 60_000);
    const later = await row('later');
    expect(later).toMatchObject({ state: 'waiting', error: { message: 'busy' }, attempts: 1 });
    const wait = new Date(later.run_after).getTime() - Date.now();
    expect(wait).toBeGreaterThan(50_000);
    expect(wait).toBeLessThanOrEqual(61_000);
    // Only the one already due is claimed again, as its second attempt.
    expect(await repo.claim(db, ['enroll'], 0)).toMatchObject({ id: 'soon', attempts: 2, error: { message: 'flaky' } });
    expect(await repo.claim(db, ['enroll'], 0)).toBeNull();
    await repo.fail(db, 'soon', { message: 'gave up' });
    const failed = await row('soon');
    expect(failed).toMatchObject({ state: 'failed', error: { message: 'gave up' }, attempts: 2 });
    expect(failed.finished_at).not.toBeNull();
  });

  it('counts an owner’s queued units, a batch once, and tells whether a job or its batch is among them', async () => {
    const { db } = opened;
    const [a, b] = [scopeOfJob({ owner_id: 'a' }), scopeOfJob({ owner_id: 'b' })];
    expect(await repo.ownerUnits(db, a, 'x', 'x')).toMatchObject({ n: 0 });
    expect((await repo.ownerUnits(db, a, 'x', 'x'))?.mine).toBeFalsy();
    await add('b1-1', { owner_id: 'a', batch_id: 'b1' });
    await add('b1-2', { owner_id: 'a', batch_id: 'b1' });
    await add('single', { owner_id: 'a' });
    await add('running', { owner_id: 'a' });
    await add('done', { owner_id: 'a' });
    await add('theirs', { owner_id: 'b' });
    await db.query(`update jobs set state = 'active' where id = 'running'`);
    await db.query(`update jobs set state = 'completed' where id = 'done'`);
    expect(await repo.ownerUnits(db, a, 'new', 'new')).toEqual({ n: 3, mine: false });
    expect(await repo.ownerUnits(db, a, 'b1-3', 'batch-b1')).toEqual({ n: 3, mine: true });
    expect(await repo.ownerUnits(db, a, 'single', 'single')).toEqual({ n: 3, mine: true });
    expect(await repo.ownerUnits(db, a, 'done', 'done')).toEqual({ n: 3, mine: false });
    expect(await repo.ownerUnits(db, b, 'x', 'x')).toEqual({ n: 1, mine: false });
  });

  it('puts every active job back to waiting after a restart', async () => {
    const { db } = opened;
    await add('cut', {}, 20);
    await add('done', {}, 10);
    await repo.claim(db, ['enroll'], 0);
    await repo.claim(db, ['enroll'], 0);
    await repo.complete(db, 'done', {});
    await repo.requeueActive(db);
    expect(await row('cut')).toMatchObject({ state: 'waiting', attempts: 1 });
    expect((await row('done')).state).toBe('completed');
  });

  it('counts jobs by name and state, delayed apart, and retries or removes the failed ones of some names only', async () => {
    const { db } = opened;
    for (const id of ['w', 'd', 'a', 'f1', 'f2']) await add(id);
    await add('fv', {}, 0, 'video');
    await db.query(`update jobs set run_after = now() + interval '1 hour' where id = 'd'`);
    await db.query(`update jobs set state = 'active' where id = 'a'`);
    await db.query(
      `update jobs set state = 'failed', attempts = 3, error = '{"message":"no"}', finished_at = now() where id in ('f1', 'f2', 'fv')`,
    );
    const counts = await repo.countsByState(db);
    const sorted = (c: typeof counts) =>
      [...c].sort((x, y) => `${x.name}${x.state}${x.delayed}`.localeCompare(`${y.name}${y.state}${y.delayed}`));
    expect(sorted(counts)).toEqual(
      sorted([
        { name: 'enroll', state: 'waiting', delayed: false, n: 1 },
        { name: 'enroll', state: 'waiting', delayed: true, n: 1 },
        { name: 'enroll', state: 'active', delayed: false, n: 1 },
        { name: 'enroll', state: 'failed', delayed: false, n: 2 },
        { name: 'video', state: 'failed', delayed: false, n: 1 },
      ]),
    );
    expect(await repo.retryFailed(db, ['enroll', 'identify'])).toBe(2);
    const retried = await row('f1');
    expect(retried).toMatchObject({ state: 'waiting', attempts: 0, error: null, finished_at: null });
    expect(new Date(retried.run_after).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await repo.retryFailed(db, ['enroll'])).toBe(0);
    expect((await row('fv')).state).toBe('failed');
    expect(await repo.removeFailed(db, ['enroll'])).toBe(0);
    expect(await repo.removeFailed(db, ['video'])).toBe(1);
    expect(await repo.get(db, 'fv')).toBeNull();
  });
});
