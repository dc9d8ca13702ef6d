import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { individualsRepo } from './individuals.repo.js';

describe.each(BOTH_DATABASES)('individuals on $name', ({ open }) => {
  let opened: OpenDatabase;
  const [owner, other, cow, gone, tree, theirs] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    opened = await open();
    const { db } = opened;
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    await db.query(
      `insert into individuals (id, owner_id, kind, deleted_at) values
        ($1, $5, 'animal', null), ($2, $5, 'animal', now()), ($3, $5, 'tree', null), ($4, $6, 'animal', null)`,
      [cow, gone, tree, theirs, owner, other],
    );
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('reads the ids of an owner’s live individuals of one kind only', async () => {
    expect(await individualsRepo.liveIdsOfKind(opened.db, owner, 'animal')).toEqual([cow]);
    expect(await individualsRepo.liveIdsOfKind(opened.db, owner, 'tree')).toEqual([tree]);
    expect(await individualsRepo.liveIdsOfKind(opened.db, owner, 'fruit')).toEqual([]);
  });
});
