import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { TreeListRow } from '../../../shared/src/repos/trees.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createTreesService, type TreesDeps } from './trees.service.js';

const db = strictMock<Queryable>({}, 'db');
const CALLER = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const TREE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
type Access = TreesDeps['access'];
type Repo = TreesDeps['trees'];

const facts = (owner: string) => ({ id: TREE, owner_id: owner, kind: 'tree' as const, farm_id: null, published: false });
const allow = (standing: 'owner' | 'read' | 'write' = 'owner'): Access =>
  vi.fn(async () => ({ decision: 'allow' as const, individual: facts(standing === 'owner' ? CALLER : OTHER), standing }));
const missing: Access = vi.fn(async () => ({ decision: 'not_found' as const, standing: null }));
const tooWeak: Access = vi.fn(async () => ({ decision: 'forbidden' as const, individual: facts(OTHER), standing: 'read' as const }));

function service(over: Partial<TreesDeps>) {
  return createTreesService({
    db,
    access: strictMock<{ fn: Access }>().fn,
    trees: strictMock<Repo>({}, 'trees'),
    recordCode: strictMock<{ fn: TreesDeps['recordCode'] }>().fn,
    pin: null,
    logger: strictMock<TreesDeps['logger']>({}, 'logger'),
    ...over,
  });
}

describe('trees service: access', () => {
  it('answers another account’s tree exactly as a missing one (404), and a grant too weak for the need 403', async () => {
    await expect(service({ access: missing }).access(CALLER, TREE, 'read')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(service({ access: tooWeak }).access(CALLER, TREE, 'write')).rejects.toMatchObject({ status: 403 });
  });

  it('asks the policy for the kind and the need, and answers the tree with the caller’s standing', async () => {
    const access = allow('write');
    expect(await service({ access }).access(CALLER, TREE, 'write', 'fruit')).toEqual({ id: TREE, owner_id: OTHER, standing: 'write' });
    expect(access).toHaveBeenCalledWith(db, CALLER, TREE, 'fruit', 'write');
  });
});

describe('trees service: rename', () => {
  it('checks write access before anything, and writes nothing for a tree the caller may not change', async () => {
    await expect(service({ access: missing }).rename(CALLER, TREE, 'row 1')).rejects.toMatchObject({ status: 404 });
    await expect(service({ access: tooWeak }).rename(CALLER, TREE, 'row 1')).rejects.toMatchObject({ status: 403 });
  });

  it('writes the cleaned name, and nothing when nothing is left of it', async () => {
    const setName = vi.fn(async () => {});
    const s = service({ access: allow('write'), trees: strictMock<Repo>({ setName }) });
    expect(await s.rename(CALLER, TREE, '  <b>row</b>\u200b  7 ')).toEqual({ tree_id: TREE, name: 'row 7' });
    expect(setName).toHaveBeenCalledWith(db, TREE, 'row 7');
    expect(await s.rename(CALLER, TREE, '<i></i> \u200b')).toBeNull();
    expect(setName).toHaveBeenCalledTimes(1);
  });
});

describe('trees service: visibility', () => {
  it('is the owner’s only: a grantee gets the policy’s answer and nothing is written', async () => {
    const access = vi.fn(tooWeak);
    await expect(service({ access }).setVisibility(CALLER, TREE, 'public')).rejects.toMatchObject({ status: 403 });
    expect(access).toHaveBeenCalledWith(db, CALLER, TREE, 'tree', 'owner');
  });

  it('writes the visibility and answers the code and the public link; private has no link and pins nothing', async () => {
    const setVisibility = vi.fn(async () => {});
    const pin = vi.fn(async () => []);
    const s = service({ access: allow(), trees: strictMock<Repo>({ setVisibility }), recordCode: async () => 'MKL-a b', pin });
    expect(await s.setVisibility(CALLER, TREE, 'restricted')).toEqual({
      tree_id: TREE,
      visibility: 'restricted',
      code: 'MKL-a b',
      link: '/t/MKL-a%20b',
    });
    expect(await s.setVisibility(CALLER, TREE, 'private')).toMatchObject({ link: null });
    expect(setVisibility.mock.calls).toEqual([
      [db, TREE, 'restricted'],
      [db, TREE, 'private'],
    ]);
    expect(pin).not.toHaveBeenCalled();
  });

  it('pins a published tree, and a failed pin is logged, not answered', async () => {
    const warn = vi.fn();
    const pin = vi.fn(async () => {
      throw new Error('kubo down');
    });
    const s = service({
      access: allow(),
      trees: strictMock<Repo>({ setVisibility: async () => {} }),
      recordCode: async () => null,
      pin,
      logger: strictMock<TreesDeps['logger']>({ warn }),
    });
    expect(await s.setVisibility(CALLER, TREE, 'public')).toEqual({ tree_id: TREE, visibility: 'public', code: null, link: null });
    expect(pin).toHaveBeenCalledWith(TREE);
    expect(warn).toHaveBeenCalledOnce();
  });
});

describe('trees service: list', () => {
  it('asks for the farm and shared trees, and marks the caller’s own trees as owner and shared ones by their grant', async () => {
    const at = new Date('2026-11-01T08:00:00Z');
    const row = (id: string, owner: string, access: 'read' | null): TreeListRow => ({
      id,
      owner_id: owner,
      farm_id: null,
      species: null,
      name: null,
      lat: null,
      lon: null,
      visibility: 'private',
      created_at: at,
      access,
      code: null,
      image_count: 3,
    });
    const list = vi.fn(async () => [row(TREE, CALLER, null), row(OTHER, OTHER, 'read')]);
    const out = await service({ trees: strictMock<Repo>({ list }) }).list(CALLER, { farm_id: 'f1', include_shared: true });
    expect(list).toHaveBeenCalledWith(db, CALLER, { farmId: 'f1', includeShared: true });
    expect(out.map((t) => [t.tree_id, t.access, t.image_count, t.created_at])).toEqual([
      [TREE, 'owner', 3, at.toISOString()],
      [OTHER, 'read', 3, at.toISOString()],
    ]);
  });
});
