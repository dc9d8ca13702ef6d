import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { treesRepo as repo } from './trees.repo.js';

describe.each(BOTH_DATABASES)('trees on $name', ({ open }) => {
  const [owner, grantee, stranger] = [randomUUID(), randomUUID(), randomUUID()];
  const [first, second, gone, theirs, fruit] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];

  const opened = openDatabase(open, async (db) => {
    await db.query(
      `insert into accounts (id, username, public_name) values ($1, 'owner', 'Vườn Lan'), ($2, 'grantee', null), ($3, 'x', null)`,
      [owner, grantee, stranger],
    );
    await db.query(
      `insert into individuals (id, owner_id, kind, farm_id, species, name, lat, lon, visibility, created_at, deleted_at) values
         ($1, $6, 'tree', 'f1', 'durian', 'row 1', 10.5, 105.5, 'public', now() - interval '3 hours', null),
         ($2, $6, 'tree', 'f2', null, null, null, null, 'private', now() - interval '2 hours', null),
         ($3, $6, 'tree', 'f1', null, null, null, null, 'public', now() - interval '1 hour', now()),
         ($4, $7, 'tree', 'f1', null, null, null, null, 'restricted', now(), null),
         ($5, $6, 'fruit', 'f1', null, null, null, null, 'private', now(), null)`,
      [first, second, gone, theirs, fruit, owner, stranger],
    );
    for (const [id, code] of [
      [first, 'MKL-aaa-1'],
      [gone, 'MKL-gone-1'],
      [theirs, 'MKL-ccc-1'],
    ])
      await db.query(`insert into tree_records (individual_id, code, record_cbor, record_cid, record_hash) values ($1, $2, $3, $4, $5)`, [
        id,
        code,
        new Uint8Array([0xa0]),
        `bafy${code}`,
        `hash${code}`,
      ]);
    await db.query(`insert into blobs (cid, size, content_type) values ('cid1', 1, 'image/jpeg'), ('cid2', 1, 'image/jpeg')`);
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source) values ($1, $3, $4, 'cid1', 'enroll'), ($2, $3, $4, 'cid2', 'enroll')`,
      [randomUUID(), randomUUID(), first, owner],
    );
    await db.query(`insert into grants (owner_id, grantee_id, kind, access) values ($1, $2, 'tree', 'read')`, [stranger, grantee]);
  });
  const db = () => opened.db;

  it('finds a live tree by its printed code in any case, and nothing for a deleted tree or an unknown code', async () => {
    expect(await repo.idByCode(db(), 'mkl-AAA-1')).toBe(first);
    expect(await repo.idByCode(db(), 'MKL-gone-1')).toBeNull();
    expect(await repo.idByCode(db(), 'MKL-none')).toBeNull();
  });

  it('lists the caller’s live trees oldest first with code and photo count, on one farm, and shared trees only on request', async () => {
    const mine = await repo.list(db(), owner, { farmId: null, includeShared: false });
    expect(mine.map((t) => [t.id, t.code, t.image_count, t.access])).toEqual([
      [first, 'MKL-aaa-1', 2, null],
      [second, null, 0, null],
    ]);
    expect(mine[0]).toMatchObject({
      owner_id: owner,
      farm_id: 'f1',
      species: 'durian',
      name: 'row 1',
      lat: 10.5,
      lon: 105.5,
      visibility: 'public',
    });
    expect(mine[0]!.created_at).toBeInstanceOf(Date);
    expect((await repo.list(db(), owner, { farmId: 'f2', includeShared: false })).map((t) => t.id)).toEqual([second]);
    expect(await repo.list(db(), grantee, { farmId: null, includeShared: false })).toEqual([]);
    const shared = await repo.list(db(), grantee, { farmId: null, includeShared: true });
    expect(shared.map((t) => [t.id, t.owner_id, t.access, t.code])).toEqual([[theirs, stranger, 'read', 'MKL-ccc-1']]);
  });

  it('renames an individual and changes its visibility, stamping when', async () => {
    await repo.setName(db(), second, 'row 2');
    await repo.setVisibility(db(), second, 'restricted');
    const r = await db().query<{ name: string; visibility: string; stamped: boolean }>(
      'select name, visibility, visibility_changed_at is not null as stamped from individuals where id = $1',
      [second],
    );
    expect(r.rows).toEqual([{ name: 'row 2', visibility: 'restricted', stamped: true }]);
  });

  it('reads a live tree by its exact code with its record and grower name; none for another case or a deleted tree', async () => {
    const row = await repo.byCode(db(), 'MKL-aaa-1');
    expect(row).toMatchObject({
      individual_id: first,
      code: 'MKL-aaa-1',
      record_cid: 'bafyMKL-aaa-1',
      record_hash: 'hashMKL-aaa-1',
      visibility: 'public',
      species: 'durian',
      name: 'row 1',
      farm_id: 'f1',
      public_name: 'Vườn Lan',
    });
    expect(row!.record_cbor).toBeInstanceOf(Uint8Array);
    expect([...row!.record_cbor]).toEqual([0xa0]);
    expect(row!.created_at).toBeInstanceOf(Date);
    expect((await repo.byCode(db(), 'MKL-ccc-1'))?.public_name).toBeNull();
    expect(await repo.byCode(db(), 'mkl-aaa-1')).toBeNull();
    expect(await repo.byCode(db(), 'MKL-gone-1')).toBeNull();
  });

  it('counts an individual’s photos', async () => {
    expect(await repo.imageCount(db(), first)).toBe(2);
    expect(await repo.imageCount(db(), second)).toBe(0);
  });

  it('sets, reads and withdraws the grower name', async () => {
    await repo.setGrowerName(db(), grantee, 'Nhà Bảo');
    expect(await repo.growerName(db(), grantee)).toBe('Nhà Bảo');
    await repo.setGrowerName(db(), grantee, null);
    expect(await repo.growerName(db(), grantee)).toBeNull();
    expect(await repo.growerName(db(), randomUUID())).toBeNull();
  });
});
