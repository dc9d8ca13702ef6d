import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { fruitListRepo as repo, type FruitFilter } from './fruit-list.repo.js';

describe.each(BOTH_DATABASES)('fruit list on $name', ({ open }) => {
  const [owner, other] = [randomUUID(), randomUUID()];
  const mine = scopeOfJob({ owner_id: owner });
  const [tree, old, young, gone, theirs] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [img1, img2] = [randomUUID(), randomUUID()];
  const all: FruitFilter = { treeId: null, farmId: null, fruitId: null };

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    await db.query(
      `insert into individuals (id, owner_id, kind, farm_id, tree_id, species, name, visibility, created_at, deleted_at) values
         ($1, $6, 'tree', 'f1', null, 'durian', 'row 1', 'private', now() - interval '4 hours', null),
         ($2, $6, 'fruit', 'f1', $1, 'durian', 'big one', 'public', now() - interval '3 hours', null),
         ($3, $6, 'fruit', 'f2', null, null, null, 'private', now() - interval '2 hours', null),
         ($4, $6, 'fruit', 'f1', $1, null, null, 'private', now() - interval '1 hour', now()),
         ($5, $7, 'fruit', 'f1', null, null, null, 'private', now(), null)`,
      [tree, old, young, gone, theirs, owner, other],
    );
    await db.query(
      `insert into tree_records (individual_id, code, record_cbor, record_cid, record_hash) values ($1, 'MKL-t-1', '\\xa0', 'bafy', 'h')`,
      [tree],
    );
    await db.query(`insert into blobs (cid, size, content_type) values ('c1', 1, 'image/jpeg'), ('c2', 1, 'image/jpeg')`);
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source, created_at) values
         ($1, $3, $4, 'c2', 'enroll', now() - interval '1 minute'), ($2, $3, $4, 'c1', 'enroll', now())`,
      [img1, img2, old, owner],
    );
  });
  const db = () => opened.db;

  it('pages the owner’s live fruit newest first with the tree’s name and code, photo count and first photo', async () => {
    const { rows, total } = await repo.page(db(), mine, all, { limit: 10, offset: 0 });
    expect(total).toBe(2);
    expect(rows.map((r) => r.id)).toEqual([young, old]);
    expect(rows[1]).toMatchObject({
      name: 'big one',
      species: 'durian',
      visibility: 'public',
      farm_id: 'f1',
      tree_id: tree,
      tree_name: 'row 1',
      tree_code: 'MKL-t-1',
      image_count: 2,
      cover: { image_id: img1, cid: 'c2' },
    });
    expect(rows[1]!.created_at).toBeInstanceOf(Date);
    expect(rows[0]).toMatchObject({ tree_id: null, tree_name: null, tree_code: null, image_count: 0, cover: null });
  });

  it('pages with limit and offset, the total counting every match', async () => {
    const { rows, total } = await repo.page(db(), mine, all, { limit: 1, offset: 1 });
    expect([rows.map((r) => r.id), total]).toEqual([[old], 2]);
  });

  it('filters by tree, farm and fruit', async () => {
    const ids = async (f: Partial<FruitFilter>) =>
      (await repo.page(db(), mine, { ...all, ...f }, { limit: 10, offset: 0 })).rows.map((r) => r.id);
    expect(await ids({ treeId: tree })).toEqual([old]);
    expect(await ids({ farmId: 'f2' })).toEqual([young]);
    expect(await ids({ fruitId: old })).toEqual([old]);
    expect(await ids({ fruitId: theirs })).toEqual([]);
  });

  it('reads fruit by id whoever owns them, deleted ones too, but never another kind', async () => {
    expect(await repo.byIds(db(), [])).toEqual([]);
    const rows = await repo.byIds(db(), [old, gone, theirs, tree, randomUUID()]);
    expect(rows.map((r) => r.id).sort()).toEqual([old, gone, theirs].sort());
  });
});
