import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { viewsRepo as repo } from './views.repo.js';

describe.each(BOTH_DATABASES)('views on $name', ({ open }) => {
  const owner = randomUUID();
  const [tree, bare] = [randomUUID(), randomUUID()];
  const [first, second] = [randomUUID(), randomUUID()];
  const descriptor = (image: string, version: string, bytes: number[], ageS: number) =>
    db().query(
      `insert into descriptors (image_id, owner_id, model, model_version, global, local, quality, created_at)
       values ($1, $2, 'bark', $3, $4, $5, $6, now() - make_interval(secs => $7))`,
      [image, owner, version, new Uint8Array(bytes), version === 'v2' ? new Uint8Array([9]) : null, { sharpness: ageS }, ageS],
    );

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
    await db.query(`insert into individuals (id, owner_id, kind) values ($1, $3, 'tree'), ($2, $3, 'tree')`, [tree, bare, owner]);
    await db.query(`insert into blobs (cid, size, content_type) values ('c1', 1, 'image/jpeg'), ('c2', 1, 'image/jpeg')`);
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source, in_record, width, height, created_at) values
         ($1, $3, $4, 'c1', 'enroll', true, 640, 480, now() - interval '1 hour'), ($2, $3, $4, 'c2', 'identify', false, null, null, now())`,
      [first, second, tree, owner],
    );
    await descriptor(first, 'v1', [1, 2], 60);
    await descriptor(first, 'v2', [3, 4], 10);
  });
  const db = () => opened.db;

  it('reads every photo oldest first, each with its newest descriptor, and none for a photo not yet described', async () => {
    const rows = await repo.ofIndividual(db(), tree);
    expect(rows.map((r) => [r.image_id, r.cid, r.source, r.in_record, r.width, r.height, r.model_version])).toEqual([
      [first, 'c1', 'enroll', true, 640, 480, 'v2'],
      [second, 'c2', 'identify', false, null, null, null],
    ]);
    expect([...rows[0]!.global!]).toEqual([3, 4]);
    expect([...rows[0]!.local!]).toEqual([9]);
    expect(rows[0]!.quality).toEqual({ sharpness: 10 });
    expect(rows[0]!.created_at).toBeInstanceOf(Date);
    expect(rows[1]).toMatchObject({ global: null, local: null, quality: null });
  });

  it('reads nothing for an individual without photos', async () => {
    expect(await repo.ofIndividual(db(), bare)).toEqual([]);
  });
});
