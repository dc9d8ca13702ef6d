import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeOfJob } from '../access/owner-scope.js';
import { ownPool, poolOwners } from '../access/pool-owners.js';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { descriptorsRepo } from './descriptors.repo.js';

const model = { name: 'm', version: '1' };
const bytes = (...v: number[]) => Buffer.from(v);
const list = (b: Uint8Array | null) => (b ? [...b] : null);

/** The descriptors the pools, fits and re-embedding read and write, on both databases the service runs on. */
describe.each(BOTH_DATABASES)('descriptors on $name', ({ open }) => {
  let opened: OpenDatabase;
  const [owner, other] = [randomUUID(), randomUUID()];
  /** A random id whose first hex digits are fixed, so the ids sort against the enrolment order. */
  const idFrom = (head: string) => head + randomUUID().slice(head.length);
  // The cow is enrolled after theirs and its first photo is older than its second: ids sort the other way.
  const [tree, cow, gone, theirs] = [randomUUID(), idFrom('ffffffff'), randomUUID(), idFrom('00000000')];
  const [img1, img2, img3, img4, img5] = [idFrom('ffffffff'), idFrom('00000000'), randomUUID(), randomUUID(), randomUUID()];
  const subject = { box: { x: 1, y: 2, w: 3, h: 4 }, score: 0.9, label: 'cow', cocoClass: 19 };

  beforeAll(async () => {
    opened = await open();
    const { db } = opened;
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    // `other` lets `owner` match its animals: a search by `owner` covers both pools.
    await db.query(`insert into grants (owner_id, grantee_id, kind, access) values ($1, $2, 'animal', 'read')`, [other, owner]);
    await db.query(
      `insert into individuals (id, owner_id, kind, farm_id, tree_id, deleted_at, created_at) values
        ($1, $5, 'tree', 'f1', null, null, '2025-12-01T00:00:00Z'), ($2, $5, 'animal', 'f1', null, null, '2025-12-03T00:00:00Z'),
        ($3, $5, 'animal', 'f1', null, now(), '2025-12-01T00:00:00Z'), ($4, $6, 'animal', null, null, null, '2025-12-02T00:00:00Z')`,
      [tree, cow, gone, theirs, owner, other],
    );
    await db.query(`insert into blobs (cid, size, content_type) values ('c1', 1, 'image/jpeg'), ('c2', 1, 'image/jpeg'),
      ('c3', 1, 'image/jpeg'), ('c4', 1, 'image/jpeg'), ('c5', 1, 'image/jpeg')`);
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source, created_at) values
        ($1, $6, $10, 'c1', 'enrol', '2026-01-01T00:00:00Z'), ($2, $6, $10, 'c2', 'enrol', '2026-01-02T00:00:00Z'), ($3, $7, $10, 'c3', 'enrol', '2026-01-03T00:00:00Z'),
        ($4, $8, $11, 'c4', 'enrol', '2026-01-04T00:00:00Z'), ($5, $9, $10, 'c5', 'enrol', '2026-01-05T00:00:00Z')`,
      [img1, img2, img3, img4, img5, cow, gone, theirs, tree, owner, other],
    );
    const d = (image: string, who: string, version: string, at: string, local: Buffer | null) =>
      db.query(
        `insert into descriptors (image_id, owner_id, model, model_version, global, local, subject, created_at) values ($1, $2, 'm', $3, $4, $5, $6, $7)`,
        [image, who, version, bytes(1, 2), local, image === img1 ? subject : null, at],
      );
    await d(img1, owner, '1', '2026-02-01T00:00:00Z', bytes(7, 7));
    await d(img2, owner, '1', '2026-02-02T00:00:00Z', null);
    await d(img3, owner, '1', '2026-02-03T00:00:00Z', null);
    await d(img4, other, '1', '2026-02-04T00:00:00Z', null);
    // The tree's photo is described by an older version only.
    await d(img5, owner, '0', '2026-02-05T00:00:00Z', null);
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('reads the live photos of some owners’ pools of a kind, individuals as enrolled and each one’s photos oldest first', async () => {
    const { db } = opened;
    const both = await poolOwners(db, scopeOfJob({ owner_id: owner }), 'animal');
    const own = ownPool(scopeOfJob({ owner_id: owner }));
    expect((await descriptorsRepo.poolImageIds(db, both, 'animal', model)).sort()).toEqual([img1, img2, img4].sort());
    expect(await descriptorsRepo.poolImageIds(db, own, 'tree', model)).toEqual([]);
    // Not by id: the held-out photos and the training order must not change between runs of one herd.
    expect((await descriptorsRepo.poolRows(db, both, 'animal', model)).map((r) => r.image_id)).toEqual([img4, img1, img2]);
    const rows = await descriptorsRepo.poolRows(db, own, 'animal', model);
    expect(rows.map((r) => r.image_id)).toEqual([img1, img2]);
    const first = rows.find((r) => r.image_id === img1)!;
    expect({ ...first, global: list(first.global) }).toEqual({
      image_id: img1,
      individual_id: cow,
      farm_id: 'f1',
      tree_id: null,
      cid: 'c1',
      global: [1, 2],
      subject,
    });
  });

  it('reads local features under one model only', async () => {
    const rows = await descriptorsRepo.localFeatures(opened.db, [img1, img2, img5], model);
    expect(rows.map((r) => [r.image_id, list(r.local)]).sort()).toEqual(
      [
        [img1, [7, 7]],
        [img2, null],
      ].sort(),
    );
  });

  it('reads an owner’s live index rows, their count and newest, and those written since', async () => {
    const { db } = opened;
    const stamp = await descriptorsRepo.ownerStamp(db, owner, model);
    expect(stamp.n).toBe(2);
    expect(new Date(stamp.latest!).toISOString()).toBe(new Date('2026-02-02T00:00:00Z').toISOString());
    expect((await descriptorsRepo.ownerImageIds(db, owner, model)).sort()).toEqual([img1, img2].sort());
    const all = await descriptorsRepo.ownerRows(db, owner, model);
    expect(all.map((r) => [r.image_id, r.individual_id, r.kind, r.farm_id]).sort()).toEqual(
      [
        [img1, cow, 'animal', 'f1'],
        [img2, cow, 'animal', 'f1'],
      ].sort(),
    );
    expect(
      (await descriptorsRepo.ownerRows(db, owner, model, new Date('2026-02-01T12:00:00Z').toISOString())).map((r) => r.image_id),
    ).toEqual([img2]);
  });

  it('reads the rows a calibration fit holds out, and each owner and kind described by a model', async () => {
    const { db } = opened;
    const rows = await descriptorsRepo.fitRows(db, scopeOfJob({ owner_id: owner }), 'animal', model);
    // Another account's scope reads its own photos only.
    expect((await descriptorsRepo.fitRows(db, scopeOfJob({ owner_id: other }), 'animal', model)).map((r) => r.image_id)).toEqual([img4]);
    expect(rows.map((r) => [r.image_id, r.cid, new Date(r.created_at).toISOString(), list(r.local)]).sort()).toEqual(
      [
        [img1, 'c1', new Date('2026-01-01T00:00:00Z').toISOString(), [7, 7]],
        [img2, 'c2', new Date('2026-01-02T00:00:00Z').toISOString(), null],
      ].sort(),
    );
    expect(rows.find((r) => r.image_id === img1)!.subject).toEqual(subject);
    expect(await descriptorsRepo.ownerKinds(db, model, owner)).toEqual([{ owner_id: owner, kind: 'animal' }]);
    expect((await descriptorsRepo.ownerKinds(db, model)).map((r) => r.owner_id).sort()).toEqual([owner, other].sort());
  });

  it('finds the photos a model has not described, and stores a descriptor once', async () => {
    const { db } = opened;
    expect(await descriptorsRepo.undescribed(db, model, owner)).toEqual([{ id: img5, owner_id: owner, cid: 'c5', kind: 'tree' }]);
    expect(await descriptorsRepo.undescribed(db, model, other)).toEqual([]);
    const row = {
      image_id: img5,
      model: 'm',
      model_version: '1',
      global: bytes(3, 4),
      local: bytes(5),
      quality: { width: 10 },
      models: JSON.stringify([{ name: 'm', version: '1' }]),
      subject: null,
    };
    await descriptorsRepo.insert(db, scopeOfJob({ owner_id: owner }), row);
    await descriptorsRepo.insert(db, scopeOfJob({ owner_id: owner }), { ...row, global: bytes(9, 9) });
    expect(await descriptorsRepo.undescribed(db, model)).toEqual([]);
    const stored = await db.query<{ global: Uint8Array; quality: unknown; models: unknown }>(
      `select global, quality, models from descriptors where image_id = $1 and model_version = '1'`,
      [img5],
    );
    expect(stored.rows.map((r) => [list(r.global), r.quality, r.models])).toEqual([[[3, 4], { width: 10 }, [{ name: 'm', version: '1' }]]]);
    expect(await descriptorsRepo.poolImageIds(db, ownPool(scopeOfJob({ owner_id: owner })), 'tree', model)).toEqual([img5]);
  });
});
