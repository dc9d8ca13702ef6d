import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { freshIds } from '../../../test/support/fresh-ids.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { ownPool, poolOwners } from '../access/pool-owners.js';
import { accessRepo } from './access.repo.js';
import { individualsRepo } from './individuals.repo.js';

describe.each(BOTH_DATABASES)('individuals on $name', ({ open }) => {
  const [owner, other, cow, gone, tree, theirs] = freshIds(6);
  const bull = randomUUID();
  // A second owner's fruit and trees, placed on a map: one published, one private, one deleted.
  const [grower, pub, priv, pubGone, near, far, nowhere, goat] = freshIds(8);
  const scope = (owner_id: string) => scopeOfJob({ owner_id });

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    await db.query(
      `insert into individuals (id, owner_id, kind, deleted_at) values
        ($1, $5, 'animal', null), ($2, $5, 'animal', now()), ($3, $5, 'tree', null), ($4, $6, 'animal', null)`,
      [cow, gone, tree, theirs, owner, other],
    );
    await db.query(`insert into accounts (id, username) values ($1, 'grower')`, [grower]);
    await db.query(
      `insert into individuals (id, owner_id, kind, visibility, deleted_at, lat, lon, name, species, farm_id) values
        ($1, $9, 'fruit', 'public', null, null, null, 'Táo 1', null, null),
        ($2, $9, 'fruit', 'private', null, null, null, null, null, null),
        ($3, $9, 'fruit', 'public', now(), null, null, null, null, null),
        ($4, $9, 'tree', 'private', null, 21.0, 105.8, 'Gần', null, 'vuon'),
        ($5, $9, 'tree', 'private', null, 10.8, 106.7, 'Xa', null, 'vuon'),
        ($6, $9, 'tree', 'private', null, null, null, null, null, 'vuon'),
        ($7, $9, 'animal', 'private', null, null, null, 'Dê', 'goat', 'trai'),
        ($8, $9, 'animal', 'private', null, null, null, 'Bò', 'cattle', 'trai')`,
      [pub, priv, pubGone, near, far, nowhere, goat, bull, grower],
    );
    // Searches cross accounts only through grants: `other` lets `owner` match its animals, and
    // `owner` lets `grower` match its own.
    await db.query(
      `insert into grants (owner_id, grantee_id, kind, access) values ($1, $2, 'animal', 'read'), ($2, $3, 'animal', 'read')`,
      [other, owner, grower],
    );
  });
  /** The pool a search by `account` covers: its own and the pools granted to it. */
  const searchOf = (account: string, kind: 'tree' | 'fruit' | 'animal') => poolOwners(opened.db, scope(account), kind);
  const own = (account: string) => ownPool(scope(account));

  it('reads the ids of an owner’s live individuals of one kind only', async () => {
    expect(await individualsRepo.liveIdsOfKind(opened.db, scope(owner), 'animal')).toEqual([cow]);
    expect(await individualsRepo.liveIdsOfKind(opened.db, scope(owner), 'tree')).toEqual([tree]);
    expect(await individualsRepo.liveIdsOfKind(opened.db, scope(owner), 'fruit')).toEqual([]);
    expect(await individualsRepo.liveIdsOfKind(opened.db, scope(other), 'animal')).toEqual([theirs]);
  });

  it('reads an owner’s animals by species spelling, within one farm when given', async () => {
    expect(await individualsRepo.animalsOfSpecies(opened.db, scope(grower), 'trai', ['goat', 'dê'])).toEqual([goat]);
    expect(await individualsRepo.animalsOfSpecies(opened.db, scope(grower), 'other-farm', ['goat'])).toEqual([]);
    expect((await individualsRepo.animalsOfSpecies(opened.db, scope(grower), null, ['goat', 'cattle'])).length).toBe(2);
    expect(await individualsRepo.animalsOfSpecies(opened.db, scope(other), null, ['goat'])).toEqual([]);
  });

  it('narrows trees to those within the distance, keeping those enrolled without a place', async () => {
    const hanoi = { lat: 21.01, lon: 105.81 };
    expect(new Set(await individualsRepo.nearbyIds(opened.db, own(grower), 'tree', hanoi, 5))).toEqual(new Set([near, nowhere]));
    expect(new Set(await individualsRepo.nearbyIds(opened.db, own(grower), 'tree', hanoi, 2000))).toEqual(new Set([near, far, nowhere]));
    expect(await individualsRepo.nearbyIds(opened.db, own(owner), 'tree', hanoi, 5)).toEqual([tree]);
  });

  it('counts the live individuals of a kind over several owners’ pools', async () => {
    const pool = await searchOf(owner, 'animal');
    expect(pool).toEqual([owner, other]);
    expect(await individualsRepo.countLive(opened.db, pool, 'animal')).toBe(2);
    // Granted animals only: the trees of the account that granted them are not in the pool.
    expect(await individualsRepo.countLive(opened.db, await searchOf(owner, 'tree'), 'tree')).toBe(1);
    expect(await individualsRepo.countLive(opened.db, own(grower), 'fruit')).toBe(2);
    expect(await individualsRepo.countLive(opened.db, own(other), 'fruit')).toBe(0);
  });

  it('lists only published live fruit as the public gallery', async () => {
    expect(await accessRepo.publishedFruit(opened.db)).toEqual([{ id: pub, owner_id: grower }]);
  });

  it('labels the live ones of the ids asked, leaving deleted and unknown ids out', async () => {
    const rows = await individualsRepo.labelsOf(opened.db, [pub, goat, gone, randomUUID()]);
    expect(rows.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
      [
        { id: pub, name: 'Táo 1', species: null, farm_id: null },
        { id: goat, name: 'Dê', species: 'goat', farm_id: 'trai' },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
  });

  it('reads each asked individual’s owner and labels, a deleted one included', async () => {
    const rows = await individualsRepo.rowsOf(opened.db, [gone, goat, randomUUID()]);
    expect(rows.find((r) => r.id === gone)).toMatchObject({ owner_id: owner, name: null });
    expect(rows.find((r) => r.id === goat)).toEqual({ id: goat, owner_id: grower, name: 'Dê', species: 'goat', farm_id: 'trai' });
    expect(rows).toHaveLength(2);
  });

  it('reads the species of a pool’s live individuals of one kind', async () => {
    const rows = await individualsRepo.speciesOfPool(opened.db, await searchOf(grower, 'animal'), 'animal');
    expect(new Map(rows.map((r) => [r.id, r.species]))).toEqual(
      new Map<string, string | null>([
        [goat, 'goat'],
        [cow, null],
        [bull, 'cattle'],
      ]),
    );
  });

  it('counts a pool’s species lower-cased, within a farm and among the ids given', async () => {
    await opened.db.query(`update individuals set species = 'Goat' where id = $1`, [goat]);
    const all = await individualsRepo.speciesCounts(opened.db, own(grower), 'animal', null);
    expect(all.sort((a, b) => String(a.species).localeCompare(String(b.species)))).toEqual([
      { species: 'cattle', n: 1 },
      { species: 'goat', n: 1 },
    ]);
    expect(await individualsRepo.speciesCounts(opened.db, own(grower), 'animal', 'trai', new Set([goat]))).toEqual([
      { species: 'goat', n: 1 },
    ]);
    expect(await individualsRepo.speciesCounts(opened.db, own(grower), 'animal', 'elsewhere')).toEqual([]);
  });

  it('enrols an individual once: a retried insert keeps the first row', async () => {
    const id = randomUUID();
    const row = {
      id,
      kind: 'tree' as const,
      farm_id: 'f',
      tree_id: null,
      species: 'Xoài',
      name: 'Cây 1',
      lat: 10,
      lon: 106,
      attrs: { name: 'Cây 1' },
    };
    await individualsRepo.insertEnrolled(opened.db, scope(owner), row);
    await individualsRepo.insertEnrolled(opened.db, scope(owner), { ...row, name: 'Khác' });
    expect(await individualsRepo.nameOf(opened.db, id)).toBe('Cây 1');
    expect(await individualsRepo.isOwnLive(opened.db, id, scope(owner))).toBe(true);
    expect(await individualsRepo.isOwnLive(opened.db, id, scope(other))).toBe(false);
    expect(await individualsRepo.isOwnLive(opened.db, gone, scope(owner))).toBe(false);
    expect(await individualsRepo.createdAt(opened.db, id)).toBeInstanceOf(Date);
    expect(await individualsRepo.createdAt(opened.db, randomUUID())).toBeNull();
    expect(await individualsRepo.nameOf(opened.db, randomUUID())).toBeNull();
  });

  it('lists the distinct species spellings of an owner’s live animals, of one farm when given', async () => {
    await opened.db.query(
      `insert into individuals (id, owner_id, kind, farm_id, species) values ($1, $4, 'animal', 'trai', 'Goat'), ($2, $4, 'animal', 'khac', '  '), ($3, $4, 'tree', 'trai', 'Xoài')`,
      [randomUUID(), randomUUID(), randomUUID(), grower],
    );
    // The goat's own row was renamed 'Goat' above: one spelling, listed once.
    expect(new Set(await individualsRepo.speciesOfFarm(opened.db, scope(grower), 'trai'))).toEqual(new Set(['cattle', 'Goat']));
    expect(await individualsRepo.speciesOfFarm(opened.db, scope(grower), 'khac')).toEqual([]);
    expect(await individualsRepo.speciesOfFarm(opened.db, scope(other), null)).toEqual([]);
  });

  it('lists a farm’s live animals, another owner’s farm of the same name never', async () => {
    expect((await individualsRepo.animalsOfFarm(opened.db, scope(grower), 'trai')).map((a) => a.id)).toEqual(
      expect.arrayContaining([goat, bull]),
    );
    expect(await individualsRepo.animalsOfFarm(opened.db, scope(owner), 'trai')).toEqual([]);
  });

  it('finds the owner’s live animal already holding one of the photos', async () => {
    await opened.db.query(
      `insert into blobs (cid, size, content_type) values ('goat-face', 1, 'image/jpeg'), ('tree-bark', 1, 'image/jpeg')`,
    );
    await opened.db.query(
      `insert into images (id, individual_id, owner_id, cid, source) values ($1, $2, $4, 'goat-face', 'enroll'), ($3, $5, $4, 'tree-bark', 'enroll')`,
      [randomUUID(), goat, randomUUID(), grower, near],
    );
    expect(await individualsRepo.animalWithPhoto(opened.db, scope(grower), ['x', 'goat-face'])).toEqual({ id: goat, name: 'Dê' });
    expect(await individualsRepo.animalWithPhoto(opened.db, scope(grower), ['tree-bark'])).toBeNull();
    expect(await individualsRepo.animalWithPhoto(opened.db, scope(owner), ['goat-face'])).toBeNull();
  });
});
