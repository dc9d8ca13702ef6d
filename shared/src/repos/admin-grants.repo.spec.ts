import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { adminGrantsRepo, IS_ADMIN_SQL } from './admin-grants.repo.js';

describe.each(BOTH_DATABASES)('admin grants on $name', ({ open }) => {
  const [ana, bao] = [randomUUID(), randomUUID()];
  const isAdmin = async (id: string) =>
    (await opened.db.query<{ is_admin: boolean }>(`select ${IS_ADMIN_SQL('a')} as is_admin from accounts a where a.id = $1`, [id])).rows[0]!
      .is_admin;

  const opened = openDatabase(open, async () => {
    await opened.db.query(`insert into accounts (id, username) values ($1, 'ana'), ($2, 'bao')`, [ana, bao]);
  });

  it('finds accounts by name and by id, with no grant yet', async () => {
    expect(await adminGrantsRepo.accountIdOf(opened.db, 'ana')).toBe(ana);
    expect(await adminGrantsRepo.accountIdOf(opened.db, 'nobody')).toBeNull();
    expect(await adminGrantsRepo.accountGrant(opened.db, bao)).toEqual({ username: 'bao', revoked_by: null, granted: false });
    expect(await adminGrantsRepo.accountGrant(opened.db, randomUUID())).toBeNull();
  });

  it('grants once, revokes once keeping who did it, and grants a revoked account again', async () => {
    expect(await adminGrantsRepo.grant(opened.db, ana, 'operator')).toBe(true);
    expect(await adminGrantsRepo.grant(opened.db, ana, 'someone-else')).toBe(false);
    expect(await isAdmin(ana)).toBe(true);
    expect(await isAdmin(bao)).toBe(false);
    const [row] = await adminGrantsRepo.active(opened.db);
    expect(row).toMatchObject({ username: 'ana', account_id: ana, granted_by: 'operator' });

    expect(await adminGrantsRepo.revoke(opened.db, ana, 'auditor')).toBe(true);
    expect(await adminGrantsRepo.revoke(opened.db, ana, 'auditor')).toBe(false);
    expect(await isAdmin(ana)).toBe(false);
    expect(await adminGrantsRepo.active(opened.db)).toEqual([]);
    expect(await adminGrantsRepo.accountGrant(opened.db, ana)).toEqual({ username: 'ana', revoked_by: 'auditor', granted: true });

    expect(await adminGrantsRepo.grant(opened.db, ana, 'operator-2')).toBe(true);
    expect(await adminGrantsRepo.accountGrant(opened.db, ana)).toEqual({ username: 'ana', revoked_by: null, granted: true });
    expect((await adminGrantsRepo.active(opened.db))[0]?.granted_by).toBe('operator-2');
  });
});
