import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { careLogRepo as repo, type NewCareEntry } from './care-log.repo.js';

describe.each(BOTH_DATABASES)('care log on $name', ({ open }) => {
  const [owner, helper] = [randomUUID(), randomUUID()];
  const [cow, tree] = [randomUUID(), randomUUID()];
  const db = () => opened.db;
  const DAY = 86_400_000;
  const entry = (over: Partial<NewCareEntry>): NewCareEntry => ({
    author_id: owner,
    owner_id: owner,
    target_type: 'animal',
    target_id: cow,
    action: null,
    product_id: null,
    product_name: null,
    dose: null,
    note: null,
    photo_cid: null,
    applied_at: new Date(),
    withdrawal: null,
    withdrawal_until: null,
    banned: null,
    ...over,
  });

  const opened = openDatabase(open, async () => {
    await db().query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'helper')`, [owner, helper]);
    await db().query(`insert into individuals (id, owner_id, kind, species) values ($1, $3, 'animal', 'cattle'), ($2, $3, 'tree', null)`, [
      cow,
      tree,
      owner,
    ]);
  });

  it('reads a target’s species, null when it has none or does not exist', async () => {
    expect(await repo.targetSpecies(db(), cow)).toBe('cattle');
    expect(await repo.targetSpecies(db(), tree)).toBeNull();
    expect(await repo.targetSpecies(db(), randomUUID())).toBeNull();
  });

  it('stores an entry with its withdrawal and banned hits as JSON, and lists live entries in the order applied', async () => {
    const until = new Date(Date.now() + 10 * DAY).toISOString();
    const later = await repo.insert(
      db(),
      entry({
        product_name: 'Ivermectin',
        dose: '5 ml',
        withdrawal: { interval_days: 10, until },
        withdrawal_until: until,
        banned: [{ id: 'b1', name: 'Carbofuran', severity: 'banned' }],
        author_id: helper,
      }),
    );
    const earlier = await repo.insert(db(), entry({ action: 'rửa chuồng', applied_at: new Date(Date.now() - DAY) }));
    await repo.insert(db(), entry({ target_type: 'tree', target_id: tree, action: 'tưới' }));
    expect(later).toMatchObject({
      author_id: helper,
      owner_id: owner,
      target_type: 'animal',
      target_id: cow,
      product_name: 'Ivermectin',
      withdrawal: { interval_days: 10, until },
      banned: [{ id: 'b1', name: 'Carbofuran', severity: 'banned' }],
      deleted_at: null,
    });
    expect(later.withdrawal_until).toBeInstanceOf(Date);
    expect(later.created_at).toBeInstanceOf(Date);
    expect((await repo.live(db(), 'animal', cow)).map((r) => r.id)).toEqual([earlier.id, later.id]);
    expect((await repo.blocking(db(), 'animal', cow)).map((r) => r.id)).toEqual([later.id]);
    expect(await repo.live(db(), 'fruit', cow)).toEqual([]);
  });

  it('orders blocking entries by the longest withdrawal first and leaves out one already over', async () => {
    const t = randomUUID();
    const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();
    const short = await repo.insert(db(), entry({ target_id: t, withdrawal: {}, withdrawal_until: at(2) }));
    const long = await repo.insert(db(), entry({ target_id: t, withdrawal: {}, withdrawal_until: at(20) }));
    await repo.insert(db(), entry({ target_id: t, withdrawal: {}, withdrawal_until: at(-1) }));
    expect((await repo.blocking(db(), 'animal', t)).map((r) => r.id)).toEqual([long.id, short.id]);
  });

  it('tombstones only its author’s live entry, once, naming the photo it dropped; the timeline still lists the tombstone', async () => {
    const photo = await repo.insert(db(), entry({ target_id: tree, target_type: 'tree', photo_cid: 'bafyphoto', note: 'nhãn' }));
    expect(await repo.remove(db(), photo.id, helper)).toBeNull();
    const removed = await repo.remove(db(), photo.id, owner);
    expect(removed).toMatchObject({ id: photo.id, old_cid: 'bafyphoto' });
    expect(removed!.deleted_at).toBeInstanceOf(Date);
    expect(await repo.remove(db(), photo.id, owner)).toBeNull();
    expect(await repo.remove(db(), randomUUID(), owner)).toBeNull();
    expect((await repo.live(db(), 'tree', tree)).map((r) => r.id)).not.toContain(photo.id);
    const all = await repo.all(db(), 'tree', tree);
    const tomb = all.find((r) => r.id === photo.id)!;
    expect(tomb).toMatchObject({ photo_cid: null, note: null, deletion_event_id: expect.any(String) });
    expect(tomb.deleted_at).toBeInstanceOf(Date);
    expect(all.map((r) => r.action)).toEqual(['tưới', null]);
  });
});
