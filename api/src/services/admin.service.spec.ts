import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createAdminService, type AdminDeps } from './admin.service.js';

const db = strictMock<Queryable>({}, 'db');
const at = (h: number) => new Date(Date.UTC(2026, 10, 28, h));

describe('admin service', () => {
  it('lists feedback with whether it had an owner, never the owner, and the total', async () => {
    const feedbackPage = vi.fn(async () => [{ id: 'f1', note: 'lá vàng', created_at: at(9), has_owner: true }]);
    const s = createAdminService({ db, reports: strictMock<AdminDeps['reports']>({ feedbackPage, feedbackCount: vi.fn(async () => 12) }) });
    const out = await s.feedback({ limit: 1, offset: 3 });
    expect(feedbackPage).toHaveBeenCalledWith(db, 1, 3);
    expect(out).toEqual({ total: 12, items: [{ id: 'f1', note: 'lá vàng', created_at: '2026-11-28T09:00:00.000Z', has_owner: true }] });
  });

  it('folds one row per (account, action) into one summary per account, in the page’s order', async () => {
    const row = (owner_id: string, username: string | null, action: string, n: number, total: number, last: number) => ({
      owner_id,
      username,
      total,
      first_seen: at(1),
      last_seen: at(last),
      action,
      n,
    });
    const activityPage = vi.fn(async () => [
      row('b', 'binh', 'enroll', 2, 5, 10),
      row('b', 'binh', 'identify', 3, 5, 10),
      row('a', null, 'login', 1, 1, 8),
    ]);
    const s = createAdminService({
      db,
      reports: strictMock<AdminDeps['reports']>({
        activityPage,
        activityOwners: vi.fn(async () => 2),
        unattributedEvents: vi.fn(async () => 4),
      }),
    });
    const out = await s.activity({ limit: 10, offset: 0 });
    expect(out.total_users).toBe(2);
    expect(out.skipped).toBe(4);
    expect(out.users).toEqual([
      {
        account_id: 'b',
        username: 'binh',
        events: 5,
        actions: { enroll: 2, identify: 3 },
        first_seen: at(1).toISOString(),
        last_seen: at(10).toISOString(),
      },
      {
        account_id: 'a',
        username: null,
        events: 1,
        actions: { login: 1 },
        first_seen: at(1).toISOString(),
        last_seen: at(8).toISOString(),
      },
    ]);
  });

  it('pages the raw log with numeric ids and ISO times', async () => {
    const eventsPage = vi.fn(async () => [{ id: '41', owner_id: null, action: 'signup', detail: {}, created_at: at(7) }]);
    const s = createAdminService({ db, reports: strictMock<AdminDeps['reports']>({ eventsPage, eventsCount: vi.fn(async () => 41) }) });
    expect(await s.events({ limit: 1, offset: 0 })).toEqual({
      total: 41,
      items: [{ id: 41, owner_id: null, action: 'signup', detail: {}, created_at: '2026-11-28T07:00:00.000Z' }],
    });
  });
});
