import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { individualAccess, standingFor } from '../access/standing.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { poolOwners } from '../access/pool-owners.js';
import { accessRepo } from './access.repo.js';

/** The facts the access policy decides on, and the decisions, on both databases the service runs on. */
describe.each(BOTH_DATABASES)('access on $name', ({ open }) => {
  let opened: OpenDatabase;
  const [owner, reader, writer, stranger] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [tree, published, deleted] = [randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    opened = await open();
    const { db } = opened;
    for (const [id, name] of [
      [owner, 'owner'],
      [reader, 'reader'],
      [writer, 'writer'],
      [stranger, 'stranger'],
    ])
      await db.query('insert into accounts (id, username) values ($1, $2)', [id, name]);
    await db.query(
      `insert into individuals (id, owner_id, kind, farm_id, visibility, deleted_at) values
        ($1, $4, 'tree', 'f1', 'private', null), ($2, $4, 'tree', 'f1', 'public', null), ($3, $4, 'tree', 'f1', 'private', now())`,
      [tree, published, deleted, owner],
    );
    await db.query(`insert into grants (owner_id, grantee_id, kind, access) values ($1, $2, 'tree', 'read'), ($1, $3, 'tree', 'write')`, [
      owner,
      reader,
      writer,
    ]);
    // A revoked grant gives nothing.
    await db.query(`insert into grants (owner_id, grantee_id, kind, access, revoked_at) values ($1, $2, 'tree', 'write', now())`, [
      owner,
      stranger,
    ]);
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('reads an individual, its owner and whether it is published; a deleted one or another kind is absent', async () => {
    const { db } = opened;
    expect(await accessRepo.liveIndividual(db, tree, 'tree')).toEqual({
      id: tree,
      owner_id: owner,
      kind: 'tree',
      farm_id: 'f1',
      published: false,
    });
    expect((await accessRepo.liveIndividual(db, published, 'tree'))?.published).toBe(true);
    expect(await accessRepo.liveIndividual(db, deleted, 'tree')).toBeUndefined();
    expect(await accessRepo.liveIndividual(db, tree, 'animal')).toBeUndefined();
    // Not a UUID: nothing, rather than the database's type error.
    expect(await accessRepo.liveIndividual(db, 'not-a-uuid', 'tree')).toBeUndefined();
    expect(await accessRepo.isPublished(db, published)).toBe(true);
    expect(await accessRepo.isPublished(db, randomUUID())).toBe(false);
  });

  it('finds the standing: owner, each grant, none for a revoked grant or another kind', async () => {
    const { db } = opened;
    expect(await standingFor(db, owner, owner, 'tree')).toBe('owner');
    expect(await standingFor(db, reader, owner, 'tree')).toBe('read');
    expect(await standingFor(db, writer, owner, 'tree')).toBe('write');
    expect(await standingFor(db, stranger, owner, 'tree')).toBeNull();
    expect(await standingFor(db, writer, owner, 'fruit')).toBeNull();
  });

  it('lists the owners whose grants of a kind reach an account, never a revoked one', async () => {
    const { db } = opened;
    expect(await accessRepo.grantorsOf(db, reader, 'tree')).toEqual([owner]);
    expect(await accessRepo.grantorsOf(db, writer, 'tree')).toEqual([owner]);
    expect(await accessRepo.grantorsOf(db, stranger, 'tree')).toEqual([]);
    expect(await accessRepo.grantorsOf(db, reader, 'fruit')).toEqual([]);
    expect(await poolOwners(db, scopeOfJob({ owner_id: reader }), 'tree')).toEqual([reader, owner]);
    expect(await poolOwners(db, scopeOfJob({ owner_id: stranger }), 'tree')).toEqual([stranger]);
  });

  it('decides each need, and a missing or deleted individual is the same not_found as one with no standing', async () => {
    const { db } = opened;
    const d = async (caller: string | null, id: string, need: 'read' | 'write' | 'owner') =>
      (await individualAccess(db, caller, id, 'tree', need)).decision;
    expect(await d(owner, tree, 'owner')).toBe('allow');
    expect(await d(writer, tree, 'write')).toBe('allow');
    expect(await d(writer, tree, 'owner')).toBe('forbidden');
    expect(await d(reader, tree, 'read')).toBe('allow');
    expect(await d(reader, tree, 'write')).toBe('forbidden');
    expect(await d(stranger, tree, 'read')).toBe('not_found');
    expect(await d(null, tree, 'read')).toBe('not_found');
    expect(await d(stranger, randomUUID(), 'read')).toBe('not_found');
    expect(await d(owner, deleted, 'read')).toBe('not_found');
  });
});
