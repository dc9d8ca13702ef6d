import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../ports/database.port.js';
import type { HeadRow, NewAlert, PopulationRepo } from '../repos/population.repo.js';
import type { AlertRow } from './population-rules.js';
import { scopeOfJob, type OwnerScope } from '../access/owner-scope.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createPopulationService, type PopulationDeps } from './population.service.js';

const DAY = 86_400_000;
const OWNER = scopeOfJob({ owner_id: 'owner-1' });
const input = { farm_id: 'trai', zone: 'north', count: 3, method: 'manual', stale_after_days: 7 };

/** A transaction that runs its function on `tx` (commit and rollback are the database's, tested in the repository spec). */
function inTransaction(tx: Queryable) {
  return strictMock<PopulationDeps['db']>({ transaction: vi.fn(async (fn: (t: Queryable) => Promise<unknown>) => fn(tx)) as never }, 'db');
}

const head = (id: string, name: string, daysUnseen: number): HeadRow => ({
  id,
  name,
  created_at: new Date(Date.now() - 60 * DAY),
  last_seen: new Date(Date.now() - daysUnseen * DAY),
});

/** The row the database would return for an alert the service asked for. */
const stored = (a: NewAlert, i: number): AlertRow => ({
  id: `alert-${i}`,
  farm_id: a.farm_id,
  zone: a.zone,
  count_id: a.count_id,
  rule: a.rule,
  individual_id: a.individual_id,
  facts: a.facts,
  created_at: new Date('2026-11-28T10:00:00Z'),
  resolved_at: null,
  resolved_note: null,
});

/** A repository for one count: the farm is the owner's, with this herd, these earlier counts and these open not_seen alerts. */
function countRepo(heads: HeadRow[], previous: number[], open: string[] = []) {
  let n = 0;
  const insertAlert = vi.fn(async (_tx: Queryable, _s: OwnerScope, a: NewAlert) => stored(a, n++));
  const insertCount = vi.fn(async () => new Date('2026-11-28T10:00:00Z'));
  const repo = strictMock<PopulationRepo>(
    {
      farmIsOwn: vi.fn(async () => true),
      herd: vi.fn(async () => heads),
      recentCounts: vi.fn(async () => previous),
      insertCount,
      insertAlert,
      notSeenOpen: vi.fn(async (_tx: Queryable, _o: OwnerScope, id: string) => open.includes(id)),
    },
    'population repo',
  );
  return { repo, insertAlert, insertCount };
}

describe('population service', () => {
  it('answers a farm that is not the caller’s as not found, writing nothing', async () => {
    const repo = strictMock<PopulationRepo>({ farmIsOwn: vi.fn(async () => false) }, 'population repo');
    const s = createPopulationService({ db: strictMock<PopulationDeps['db']>({}, 'db'), population: repo });
    await expect(s.count(OWNER, input, [], 'vi')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(s.alerts(OWNER, 'trai', 'vi')).rejects.toMatchObject({ status: 404 });
    await expect(s.dashboard(OWNER, 'trai')).rejects.toMatchObject({ status: 404 });
  });

  it('stores a count with its media in the transaction and raises nothing when the herd is all there and seen', async () => {
    const tx = strictMock<Queryable>({}, 'tx');
    const { repo, insertAlert, insertCount } = countRepo([head('a', 'Bông', 1), head('b', 'Mận', 2)], [3, 3]);
    const s = createPopulationService({ db: inTransaction(tx), population: repo });
    const out = await s.count(
      OWNER,
      { ...input, note: 'sáng' },
      [{ cid: 'cid-1', filename: 'a.jpg', contentType: 'image/jpeg', size: 1, created: true }],
      'vi',
    );
    expect(out).toMatchObject({
      farm_id: 'trai',
      zone: 'north',
      count: 3,
      enrolled: 2,
      baseline: 3,
      alerts: [],
      created_at: '2026-11-28T10:00:00.000Z',
    });
    expect(out.media).toEqual([{ cid: 'cid-1', content_type: 'image/jpeg' }]);
    expect(insertCount).toHaveBeenCalledWith(tx, OWNER, expect.objectContaining({ id: out.count_id, note: 'sáng', media_cids: ['cid-1'] }));
    expect(insertAlert).not.toHaveBeenCalled();
  });

  it('raises below_enrolled, sudden_drop and not_seen for an animal unseen past the limit, once', async () => {
    const tx = strictMock<Queryable>({}, 'tx');
    const heads = [head('a', 'Bông', 1), head('b', 'Mận', 9), head('c', 'Đào', 30), head('d', 'Na', 2)];
    // Đào is already reported unseen and not resolved: not reported again.
    const { repo, insertAlert } = countRepo(heads, [10, 10, 9], ['c']);
    const s = createPopulationService({ db: inTransaction(tx), population: repo });
    const out = await s.count(OWNER, input, [], 'en');
    expect(out.baseline).toBe(10);
    expect(out.alerts.map((a) => a.rule)).toEqual(['below_enrolled', 'sudden_drop', 'not_seen']);
    const calls = insertAlert.mock.calls.map(([t, o, a]) => ({ t, o, ...a }));
    expect(calls[0]).toMatchObject({ t: tx, o: OWNER, count_id: out.count_id, facts: { counted: 3, enrolled: 4, missing: 1 } });
    expect(calls[1]).toMatchObject({ facts: { counted: 3, baseline: 10, recent: [10, 10, 9] } });
    expect(calls[2]).toMatchObject({ individual_id: 'b', facts: { name: 'Mận', days_unseen: 9, stale_after_days: 7 } });
    expect(out.alerts[2]!.message).toContain('Mận');
  });

  it('takes no sudden drop from a zone without earlier counts, and none from a drop under a fifth', async () => {
    const first = countRepo([], []);
    const s1 = createPopulationService({ db: inTransaction(strictMock<Queryable>()), population: first.repo });
    expect((await s1.count(OWNER, { ...input, count: 0 }, [], 'vi')).baseline).toBeNull();
    expect(first.insertAlert).not.toHaveBeenCalled();
    const small = countRepo([], [20]);
    const s2 = createPopulationService({ db: inTransaction(strictMock<Queryable>()), population: small.repo });
    expect((await s2.count(OWNER, { ...input, count: 17 }, [], 'vi')).alerts).toEqual([]);
  });

  it('answers a malformed alert id as not found without asking the database, and a stranger’s like a missing one', async () => {
    const resolveAlert = vi.fn(async () => null);
    const s = createPopulationService({
      db: strictMock<PopulationDeps['db']>({}, 'db'),
      population: strictMock<PopulationRepo>({ resolveAlert }),
    });
    await expect(s.resolve(OWNER, 'not-a-uuid', undefined, 'vi')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(resolveAlert).not.toHaveBeenCalled();
    const id = '0b6f6c1e-2a8e-4c57-9d3e-6e0f7c1b9a10';
    await expect(s.resolve(OWNER, id, 'x', 'vi')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(resolveAlert).toHaveBeenCalledWith(expect.anything(), OWNER, id, 'x');
  });

  it('adds up the dashboard over counted zones only, with each zone’s status', async () => {
    const latest: Record<string, { count: number; method: string; created_at: Date } | null> = {
      north: { count: 4, method: 'survey', created_at: new Date('2026-11-27T08:00:00Z') },
      south: { count: 6, method: 'manual', created_at: new Date('2026-11-26T08:00:00Z') },
      east: null,
    };
    const repo = strictMock<PopulationRepo>({
      farmIsOwn: vi.fn(async () => true),
      zones: vi.fn(async () => ['east', 'north', 'south']),
      latestCount: vi.fn(async (_q: Queryable, _o: OwnerScope, _f: string, zone: string) => latest[zone] ?? null),
      openAlertCount: vi.fn(async (_q: Queryable, _o: OwnerScope, _f: string, zone: string) => (zone === 'south' ? 2 : 0)),
      herd: vi.fn(async (_q: Queryable, _o: OwnerScope, _f: string, zone: string) => (zone === 'north' ? [head('a', 'Bông', 1)] : [])),
      animalCount: vi.fn(async () => 5),
    });
    const s = createPopulationService({ db: strictMock<PopulationDeps['db']>({}, 'db'), population: repo });
    const d = await s.dashboard(OWNER, 'trai');
    expect(d).toMatchObject({ farm_id: 'trai', total_head: 10, enrolled_head: 5, open_alerts: 2 });
    expect(d.zones.map((z) => [z.zone, z.status, z.latest_count, z.enrolled])).toEqual([
      ['east', 'not_counted', null, 0],
      ['north', 'ok', 4, 1],
      ['south', 'alert', 6, 0],
    ]);
  });
});
