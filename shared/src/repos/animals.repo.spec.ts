import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scopeOfJob } from '../access/owner-scope.js';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { freshIds } from '../../../test/support/fresh-ids.js';
import { animalsRepo as repo } from './animals.repo.js';
import { descriptorsRepo } from './descriptors.repo.js';

describe.each(BOTH_DATABASES)('animals on $name', ({ open }) => {
  const ids = freshIds(6);
  const [owner, bong, man, goat, gone, photo] = ids;

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
    await db.query(
      `insert into individuals (id, owner_id, kind, farm_id, species, name, created_at, deleted_at) values
        ($1, $5, 'animal', 'trai', 'Bò', 'Bông', now() - interval '3 days', null),
        ($2, $5, 'animal', 'trai', 'cattle', 'Mận', now() - interval '2 days', null),
        ($3, $5, 'animal', 'trai', 'Dê', 'Dê 1', now() - interval '1 day', null),
        ($4, $5, 'animal', 'trai', 'Bò', 'Đã bán', now(), now())`,
      [bong, man, goat, gone, owner],
    );
    await db.query(`insert into blobs (cid, size, content_type) values ('c1', 1, 'image/jpeg')`);
    await db.query(`insert into images (id, individual_id, owner_id, cid, source) values ($1, $2, $3, 'c1', 'enroll')`, [
      photo,
      man,
      owner,
    ]);
    await descriptorsRepo.insert(db, scopeOfJob({ owner_id: owner }), {
      image_id: photo,
      model: 'm',
      model_version: '1',
      global: new Uint8Array(4),
      local: new Uint8Array(),
      quality: {},
      models: '[]',
      subject: null,
    });
  });

  it('lists a farm’s live animals oldest first, by species spellings when asked, with photo count and cover', async () => {
    const mine = scopeOfJob({ owner_id: owner });
    expect(await repo.countOnFarm(opened.db, mine, 'trai', null)).toBe(3);
    expect(await repo.countOnFarm(opened.db, mine, 'trai', ['Bò', 'cattle'])).toBe(2);
    expect(await repo.countOnFarm(opened.db, scopeOfJob({ owner_id: randomUUID() }), 'trai', null)).toBe(0);
    expect(await repo.pageOnFarm(opened.db, scopeOfJob({ owner_id: randomUUID() }), 'trai', null, 10, 0)).toEqual([]);
    const page = await repo.pageOnFarm(opened.db, mine, 'trai', null, 2, 1);
    expect(page.map((a) => a.name)).toEqual(['Mận', 'Dê 1']);
    expect(page[0]).toMatchObject({ image_count: 1, cover: { image_id: photo, cid: 'c1' } });
    expect(page[1]).toMatchObject({ image_count: 0, cover: null });
    expect((await repo.summary(opened.db, bong))?.name).toBe('Bông');
    expect(await repo.summary(opened.db, randomUUID())).toBeNull();
  });

  it('reads no 3D model until one was attempted', async () => {
    expect(await repo.model3d(opened.db, man)).toBeNull();
  });

  it('counts what a deletion removes, then removes the photos and embeddings and marks the animal deleted', async () => {
    expect(await repo.photoCounts(opened.db, man)).toEqual({ images: 1, descriptors: 1 });
    await repo.remove(opened.db, man);
    expect(await repo.photoCounts(opened.db, man)).toEqual({ images: 0, descriptors: 0 });
    expect(await repo.countOnFarm(opened.db, scopeOfJob({ owner_id: owner }), 'trai', null)).toBe(2);
    const row = await opened.db.query<{ deleted: boolean }>('select deleted_at is not null as deleted from individuals where id = $1', [
      man,
    ]);
    expect(row.rows[0]!.deleted).toBe(true);
  });
});
