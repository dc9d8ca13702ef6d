import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { populationRepo as repo } from './population.repo.js';

describe.each(BOTH_DATABASES)('population on $name', ({ open }) => {
  const [owner, other, zoned, unzoned, gone, theirs] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [mine, yours] = [scopeOfJob({ owner_id: owner }), scopeOfJob({ owner_id: other })];
  const db = () => opened.db;

  const opened = openDatabase(open, async () => {
    await db().query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    await db().query(
      `insert into individuals (id, owner_id, kind, farm_id, name, attrs, deleted_at, created_at) values
        ($1, $5, 'animal', 'trai', 'Bông', '{"zone":"north"}', null, now() - interval '20 days'),
        ($2, $5, 'animal', 'trai', 'Mận', '{}', null, now() - interval '10 days'),
        ($3, $5, 'animal', 'trai', 'Đã bán', '{"zone":"north"}', now(), now() - interval '30 days'),
        ($4, $6, 'animal', 'trai', 'Của người khác', '{"zone":"north"}', null, now())`,
      [zoned, unzoned, gone, theirs, owner, other],
    );
    await db().query(`insert into farms (farm_id, owner_id, chain_id) values ('ruong', $1, $2)`, [owner, `${owner}/ruong`]);
  });

  it('knows a farm as the owner’s by an enrolled animal or by its farm row, never another account’s', async () => {
    expect(await repo.farmIsOwn(db(), mine, 'trai')).toBe(true);
    expect(await repo.farmIsOwn(db(), mine, 'ruong')).toBe(true);
    expect(await repo.farmIsOwn(db(), mine, 'nowhere')).toBe(false);
    expect(await repo.farmIsOwn(db(), yours, 'ruong')).toBe(false);
  });

  it('compares a zone with the live animals enrolled in it, seen last when a label confirmed them', async () => {
    const north = await repo.herd(db(), mine, 'trai', 'north');
    expect(north.map((h) => h.name)).toEqual(['Bông']);
    expect(north[0]!.last_seen.getTime()).toBe(north[0]!.created_at.getTime());
    const query = randomUUID();
    await db().query(`insert into identify_queries (id, owner_id, kind, image_cids, result) values ($1, $2, 'animal', '{}', '{}')`, [
      query,
      owner,
    ]);
    await db().query(`insert into identify_verdicts (id, query_id, owner_id, verdict, correct_id) values ($1, $2, $3, 'correct', $4)`, [
      randomUUID(),
      query,
      owner,
      zoned,
    ]);
    const [seen] = await repo.herd(db(), mine, 'trai', 'north');
    expect(seen!.last_seen.getTime()).toBeGreaterThan(seen!.created_at.getTime());
    expect(await repo.animalCount(db(), mine, 'trai')).toBe(2);
    expect(await repo.animalCount(db(), yours, 'trai')).toBe(1);
  });

  it('stores counts and reads the recent ones newest first, the latest, and the zones', async () => {
    for (const [count, zone] of [
      [5, 'north'],
      [4, 'north'],
      [7, 'south'],
    ] as const)
      await repo.insertCount(db(), mine, {
        id: randomUUID(),
        farm_id: 'trai',
        zone,
        count,
        method: 'manual',
        note: null,
        media_cids: [],
      });
    expect(await repo.recentCounts(db(), mine, 'trai', 'north', 30, 5)).toEqual([4, 5]);
    expect(await repo.recentCounts(db(), mine, 'trai', 'north', 30, 1)).toEqual([4]);
    expect(await repo.recentCounts(db(), yours, 'trai', 'north', 30, 5)).toEqual([]);
    expect(await repo.latestCount(db(), mine, 'trai', 'south')).toMatchObject({ count: 7, method: 'manual' });
    expect(await repo.latestCount(db(), mine, 'trai', 'east')).toBeNull();
    expect(await repo.zones(db(), mine, 'trai')).toEqual(['north', 'south']);
  });

  it('raises, lists, counts and resolves alerts, one account’s only', async () => {
    const countId = randomUUID();
    await repo.insertCount(db(), mine, {
      id: countId,
      farm_id: 'trai',
      zone: 'north',
      count: 0,
      method: 'survey',
      note: 'x',
      media_cids: ['cid'],
    });
    const base = { farm_id: 'trai', zone: 'north', count_id: countId };
    const drop = await repo.insertAlert(db(), mine, { ...base, rule: 'sudden_drop', individual_id: null, facts: { counted: 0 } });
    const unseen = await repo.insertAlert(db(), mine, { ...base, rule: 'not_seen', individual_id: zoned, facts: { days: 9 } });
    expect(unseen).toMatchObject({ rule: 'not_seen', individual_id: zoned, facts: { days: 9 }, resolved_at: null });
    expect(await repo.notSeenOpen(db(), mine, zoned, 48)).toBe(true);
    expect(await repo.notSeenOpen(db(), mine, unzoned, 48)).toBe(false);
    expect((await repo.openAlerts(db(), mine, 'trai', 48)).map((a) => a.id).sort()).toEqual([drop.id, unseen.id].sort());
    expect(await repo.openAlertCount(db(), mine, 'trai', 'north', 48)).toBe(2);
    expect(await repo.resolveAlert(db(), yours, unseen.id, 'not mine')).toBeNull();
    const resolved = await repo.resolveAlert(db(), mine, unseen.id, 'found her');
    expect(resolved).toMatchObject({ id: unseen.id, resolved_note: 'found her' });
    // Resolving again keeps the first note and time.
    const again = await repo.resolveAlert(db(), mine, unseen.id, 'second note');
    expect(again).toMatchObject({ resolved_note: 'found her' });
    expect(new Date(again!.resolved_at!).getTime()).toBe(new Date(resolved!.resolved_at!).getTime());
    expect(await repo.notSeenOpen(db(), mine, zoned, 48)).toBe(false);
    expect(await repo.openAlertCount(db(), mine, 'trai', 'north', 48)).toBe(1);
    expect(await repo.openAlerts(db(), yours, 'trai', 48)).toEqual([]);
  });
});
