import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { freshIds } from '../../../test/support/fresh-ids.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { animalDriftRepo as repo } from './animal-drift.repo.js';
import { descriptorsRepo } from './descriptors.repo.js';

describe.each(BOTH_DATABASES)('the drift report’s reads on $name', ({ open }) => {
  const [owner, other, cow, sold, elsewhere, photo, soldPhoto] = freshIds(7);
  const [mine, theirs] = [scopeOfJob({ owner_id: owner }), scopeOfJob({ owner_id: other })];

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    await db.query(
      `insert into individuals (id, owner_id, kind, farm_id, name, deleted_at) values
        ($1, $4, 'animal', 'trai', 'Bông', null), ($2, $4, 'animal', 'trai', 'Đã bán', now()), ($3, $4, 'animal', 'khac', 'Xa', null)`,
      [cow, sold, elsewhere, owner],
    );
    await db.query(`insert into blobs (cid, size, content_type) values ('c1', 1, 'image/jpeg'), ('c2', 1, 'image/jpeg')`);
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source) values ($1, $2, $5, 'c1', 'enroll'), ($3, $4, $5, 'c2', 'enroll')`,
      [photo, cow, soldPhoto, sold, owner],
    );
    for (const [image_id, version] of [
      [photo, 'v1'],
      [photo, 'v2'],
      [soldPhoto, 'v1'],
    ] as const)
      await descriptorsRepo.insert(db, scopeOfJob({ owner_id: owner }), {
        image_id,
        model: 'm',
        model_version: version,
        global: new Uint8Array(8),
        local: new Uint8Array(),
        quality: { keypoints: 321 },
        models: '[]',
        subject: null,
      });
    for (const [who, kind, minutes] of [
      [owner, 'animal', 2],
      [owner, 'animal', 1],
      [owner, 'tree', 0],
      [other, 'animal', 0],
    ] as const)
      await db.query(
        `insert into identify_queries (id, owner_id, kind, image_cids, result, created_at) values ($1, $2, $3, '{}', $4, now() - make_interval(mins => $5))`,
        [randomUUID(), who, kind, { verdict: 'uncertain', minutes }, minutes],
      );
  });

  it('reads the farm’s live animals only', async () => {
    expect(await repo.farmAnimals(opened.db, mine, 'trai')).toEqual([{ id: cow, name: 'Bông' }]);
    expect(await repo.farmAnimals(opened.db, theirs, 'trai')).toEqual([]);
  });

  it('reads the live animals’ embeddings of every version, with their keypoints, up to the limit', async () => {
    const rows = await repo.farmEmbeddings(opened.db, mine, 'trai', 10);
    expect(rows.map((r) => [r.individual_id, r.model_version, r.keypoints]).sort()).toEqual([
      [cow, 'v1', 321],
      [cow, 'v2', 321],
    ]);
    expect(await repo.farmEmbeddings(opened.db, mine, 'trai', 1)).toHaveLength(1);
    expect(await repo.farmEmbeddings(opened.db, theirs, 'trai', 10)).toEqual([]);
  });

  it('reads the owner’s newest animal answers, up to the limit', async () => {
    const answers = await repo.recentAnswers<{ minutes: number }, unknown>(opened.db, mine, 10);
    expect(answers.map((a) => a.result.minutes)).toEqual([1, 2]);
    expect(await repo.recentAnswers(opened.db, mine, 1)).toHaveLength(1);
  });
});
