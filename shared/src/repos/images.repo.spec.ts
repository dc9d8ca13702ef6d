import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scopeOfJob } from '../access/owner-scope.js';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { descriptorsRepo } from './descriptors.repo.js';
import { imagesRepo } from './images.repo.js';
import { treeRecordCode } from './evidence/tree-record.js';

describe.each(BOTH_DATABASES)('images on $name', ({ open }) => {
  const [owner, cow, calf, first, second, third] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
    await db.query(`insert into individuals (id, owner_id, kind) values ($1, $3, 'animal'), ($2, $3, 'animal')`, [cow, calf, owner]);
    await db.query(
      `insert into blobs (cid, size, content_type) values ('cid-a', 1, 'image/jpeg'), ('cid-b', 1, 'image/jpeg'), ('cid-c', 1, 'image/jpeg')`,
    );
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source, created_at) values
        ($1, $4, $6, 'cid-b', 'enroll', now() - interval '1 hour'),
        ($2, $4, $6, 'cid-a', 'enroll', now()),
        ($3, $5, $6, 'cid-c', 'enroll', now() + interval '1 hour')`,
      [first, second, third, cow, calf, owner],
    );
  });

  it('reads the photos of the individuals asked, oldest first', async () => {
    expect(await imagesRepo.photosOf(opened.db, [cow])).toEqual([
      { id: first, cid: 'cid-b', individual_id: cow },
      { id: second, cid: 'cid-a', individual_id: cow },
    ]);
    expect((await imagesRepo.photosOf(opened.db, [cow, calf])).map((r) => r.id)).toEqual([first, second, third]);
    expect(await imagesRepo.photosOf(opened.db, [randomUUID()])).toEqual([]);
  });

  it('reads the content id of each photo asked', async () => {
    const rows = await imagesRepo.cidsOf(opened.db, [second, third, randomUUID()]);
    expect(new Map(rows.map((r) => [r.id, r.cid]))).toEqual(
      new Map([
        [second, 'cid-a'],
        [third, 'cid-c'],
      ]),
    );
  });

  it('adds a photo once: a retry gets the same row back, marked as not inserted', async () => {
    await opened.db.query(`insert into blobs (cid, size, content_type) values ('cid-d', 1, 'image/jpeg')`);
    const photo = { individual_id: calf, owner_id: owner, cid: 'cid-d', source: 'enroll', in_record: false, width: 64, height: 48 };
    const first = await imagesRepo.addToIndividual(opened.db, { ...photo, id: randomUUID() });
    const retry = await imagesRepo.addToIndividual(opened.db, { ...photo, id: randomUUID(), source: 'other' });
    expect(first.inserted).toBe(true);
    expect(retry).toEqual({ id: first.id, inserted: false });
    const rows = await opened.db.query<{ source: string; width: number }>('select source, width from images where cid = $1', ['cid-d']);
    expect(rows.rows).toEqual([{ source: 'enroll', width: 64 }]);
    // cid-c was stored an hour ahead of now (the fixture), so the photo added now comes first.
    expect(await imagesRepo.firstCids(opened.db, calf, 4)).toEqual(['cid-d', 'cid-c']);
    expect(await imagesRepo.firstCids(opened.db, cow, 1)).toEqual(['cid-b']);
  });

  it('reads a tree’s printed code, null for a tree without a record', async () => {
    expect(await treeRecordCode(opened.db, cow)).toBeNull();
  });

  it('says whether any photo still lacks a descriptor of a model', async () => {
    const model = { name: 'm', version: '1' };
    expect(await descriptorsRepo.anyUndescribed(opened.db, model)).toBe(true);
    const all = await opened.db.query<{ id: string }>('select id from images');
    for (const { id } of all.rows)
      await descriptorsRepo.insert(opened.db, scopeOfJob({ owner_id: owner }), {
        image_id: id,
        model: 'm',
        model_version: '1',
        global: new Uint8Array([0]),
        local: new Uint8Array(),
        quality: {},
        models: '[]',
        subject: null,
      });
    expect(await descriptorsRepo.anyUndescribed(opened.db, model)).toBe(false);
    expect(await descriptorsRepo.anyUndescribed(opened.db, { name: 'm', version: '2' })).toBe(true);
  });
});
