import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scopeOfJob } from '../access/owner-scope.js';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { grantsRepo } from './grants.repo.js';

describe.each(BOTH_DATABASES)('grants on $name', ({ open }) => {
  const [owner, grantee, other] = [randomUUID(), randomUUID(), randomUUID()];
  const [ownerScope, granteeScope, otherScope] = [
    scopeOfJob({ owner_id: owner }),
    scopeOfJob({ owner_id: grantee }),
    scopeOfJob({ owner_id: other }),
  ];

  const opened = openDatabase(open, async () => {
    for (const [id, name] of [
      [owner, 'owner'],
      [grantee, 'grantee'],
      [other, 'other'],
    ])
      await opened.db.query('insert into accounts (id, username) values ($1, $2)', [id, name]);
  });

  it('finds an account by id or by username, and nothing for an unknown one', async () => {
    const { db } = opened;
    expect(await grantsRepo.findAccount(db, { id: grantee })).toEqual({ id: grantee, username: 'grantee' });
    expect(await grantsRepo.findAccount(db, { id: grantee.toUpperCase() })).toEqual({ id: grantee, username: 'grantee' });
    expect(await grantsRepo.findAccount(db, { username: 'grantee' })).toEqual({ id: grantee, username: 'grantee' });
    expect(await grantsRepo.findAccount(db, { id: randomUUID() })).toBeNull();
    expect(await grantsRepo.findAccount(db, { username: 'nobody' })).toBeNull();
  });

  it('grants, changes the access level in place, and lists active grants both ways with usernames', async () => {
    const { db } = opened;
    await grantsRepo.upsert(db, { owner: ownerScope, granteeId: grantee, kind: 'tree', access: 'read' });
    await grantsRepo.upsert(db, { owner: ownerScope, granteeId: grantee, kind: 'animal', access: 'write' });
    await grantsRepo.upsert(db, { owner: ownerScope, granteeId: grantee, kind: 'tree', access: 'write' });
    await grantsRepo.upsert(db, { owner: otherScope, granteeId: owner, kind: 'fruit', access: 'read' });
    const mine = await grantsRepo.activeOf(db, owner);
    expect(mine.map(({ created_at: _c, updated_at: _u, ...g }) => g)).toEqual([
      { owner_id: owner, owner_name: 'owner', grantee_id: grantee, grantee_name: 'grantee', kind: 'tree', access: 'write' },
      { owner_id: owner, owner_name: 'owner', grantee_id: grantee, grantee_name: 'grantee', kind: 'animal', access: 'write' },
      { owner_id: other, owner_name: 'other', grantee_id: owner, grantee_name: 'owner', kind: 'fruit', access: 'read' },
    ]);
    for (const g of mine) {
      expect(g.created_at).toBeInstanceOf(Date);
      expect(g.updated_at.getTime()).toBeGreaterThanOrEqual(g.created_at.getTime());
    }
    expect((await grantsRepo.activeOf(db, grantee)).map((g) => g.kind)).toEqual(['tree', 'animal']);
  });

  it('revokes an active grant once, keeps it out of the list, and grants it again', async () => {
    const { db } = opened;
    const tree = { owner: ownerScope, granteeId: grantee, kind: 'tree' as const };
    expect(await grantsRepo.revoke(db, tree)).toBe(true);
    expect(await grantsRepo.revoke(db, tree)).toBe(false);
    expect(await grantsRepo.revoke(db, { owner: granteeScope, granteeId: owner, kind: 'tree' })).toBe(false);
    expect((await grantsRepo.activeOf(db, grantee)).map((g) => g.kind)).toEqual(['animal']);
    const kept = await db.query<{ revoked: boolean }>(
      `select revoked_at is not null as revoked from grants where owner_id = $1 and grantee_id = $2 and kind = 'tree'`,
      [owner, grantee],
    );
    expect(kept.rows).toEqual([{ revoked: true }]);
    await grantsRepo.upsert(db, { ...tree, access: 'read' });
    expect((await grantsRepo.activeOf(db, grantee)).map((g) => [g.kind, g.access])).toEqual([
      ['tree', 'read'],
      ['animal', 'write'],
    ]);
  });
});
