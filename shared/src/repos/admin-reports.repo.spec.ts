import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { adminReportsRepo as repo } from './admin-reports.repo.js';

describe.each(BOTH_DATABASES)('admin reports on $name', ({ open }) => {
  const [ana, bao] = [randomUUID(), randomUUID()];

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'ana'), ($2, 'bao')`, [ana, bao]);
    await db.query(`insert into feedback (id, owner_id, note) values ($1, $2, 'một'), ($3, null, 'hai')`, [
      randomUUID(),
      ana,
      randomUUID(),
    ]);
    const event = (owner: string | null, action: string, hoursAgo: number) =>
      db.query(
        `insert into activity_events (owner_id, action, detail, created_at) values ($1, $2, '{}', now() - make_interval(hours => $3))`,
        [owner, action, hoursAgo],
      );
    await event(ana, 'enroll', 5);
    await event(ana, 'enroll', 4);
    await event(ana, 'identify', 3);
    await event(bao, 'login', 1);
    await event(null, 'signup_refused', 2);
  });

  it('pages feedback newest first, telling only whether it had an owner', async () => {
    const rows = await repo.feedbackPage(opened.db, 10, 0);
    expect(rows.map((r) => [r.note, r.has_owner])).toEqual(
      expect.arrayContaining([
        ['một', true],
        ['hai', false],
      ]),
    );
    expect(Object.keys(rows[0]!).sort()).toEqual(['created_at', 'has_owner', 'id', 'note']);
    expect(await repo.feedbackCount(opened.db)).toBe(2);
  });

  it('pages accounts by latest activity, never splitting an account’s actions, and counts the rest', async () => {
    const first = await repo.activityPage(opened.db, 1, 0);
    expect(first.map((r) => [r.username, r.action, r.n, r.total])).toEqual([['bao', 'login', 1, 1]]);
    const second = await repo.activityPage(opened.db, 1, 1);
    expect(second.map((r) => [r.username, r.action, r.n, r.total])).toEqual([
      ['ana', 'enroll', 2, 3],
      ['ana', 'identify', 1, 3],
    ]);
    expect(await repo.activityOwners(opened.db)).toBe(2);
    expect(await repo.unattributedEvents(opened.db)).toBe(1);
  });

  it('pages the raw log newest first', async () => {
    const rows = await repo.eventsPage(opened.db, 2, 0);
    expect(rows.map((r) => r.action)).toEqual(['login', 'signup_refused']);
    expect(await repo.eventsCount(opened.db)).toBe(5);
  });
});
