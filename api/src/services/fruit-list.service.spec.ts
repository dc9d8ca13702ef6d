import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { FruitListRow } from '../../../shared/src/repos/fruit-list.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createFruitListService, type FruitListDeps } from './fruit-list.service.js';

const db = strictMock<Queryable>({}, 'db');
const OWNER = '11111111-1111-4111-8111-111111111111';
const caller = { account_id: OWNER } as Caller;
/** The caller's own fruit, as the service scopes the page. */
const SCOPE = scopeOfCaller(caller);
const TREE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const FRUIT = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
type Repo = FruitListDeps['fruit'];
const page = { limit: 20, offset: 0 };
const at = new Date('2026-11-01T08:00:00Z');
const row = (over: Partial<FruitListRow>): FruitListRow => ({
  id: FRUIT,
  name: null,
  species: 'durian',
  visibility: 'private',
  farm_id: 'f1',
  created_at: at,
  tree_id: TREE,
  tree_name: 'row 1',
  tree_code: 'MKL-t-1',
  image_count: 2,
  cover: { image_id: 'img', cid: 'bafycover' },
  ...over,
});

function service(over: Partial<FruitListDeps>) {
  return createFruitListService({
    db,
    fruit: strictMock<Repo>({}, 'fruit'),
    treeRef: strictMock<{ fn: FruitListDeps['treeRef'] }>().fn,
    access: strictMock<{ fn: FruitListDeps['access'] }>().fn,
    ...over,
  });
}

describe('fruit list service', () => {
  it('answers a tree filter naming another account’s tree exactly as an unknown code, and reads no fruit', async () => {
    const access = vi.fn(async () => ({ decision: 'not_found' as const, standing: null }));
    const foreign = await service({ treeRef: async () => TREE, access })
      .list(caller, { tree_id: 'MKL-t-1', ...page })
      .catch((e: unknown) => e);
    const unknown = await service({
      treeRef: async () => {
        throw ERRORS.notFound();
      },
    })
      .list(caller, { tree_id: 'MKL-none', ...page })
      .catch((e: unknown) => e);
    expect(foreign).toMatchObject({ status: 404, code: 'not_found' });
    expect(unknown).toEqual(foreign);
    expect(access).toHaveBeenCalledWith(db, OWNER, TREE, 'tree', 'owner');
  });

  it('lists one of the owner’s trees’ fruit by the tree’s id, with the other filters and the page', async () => {
    const pageOf = vi.fn(async () => ({ rows: [row({})], total: 7 }));
    const access = vi.fn(async () => ({ decision: 'allow' as const, standing: 'owner' as const }));
    const out = await service({ treeRef: async () => TREE, access, fruit: strictMock<Repo>({ page: pageOf }) }).list(caller, {
      tree_id: 'MKL-t-1',
      farm_id: 'f1',
      limit: 5,
      offset: 10,
    });
    expect(pageOf).toHaveBeenCalledWith(db, SCOPE, { treeId: TREE, farmId: 'f1', fruitId: null }, { limit: 5, offset: 10 });
    expect(out).toEqual({
      fruit: [
        {
          fruit_id: FRUIT,
          short_code: 'BBBBBBBB',
          name: null,
          species: 'durian',
          farm_id: 'f1',
          tree: { tree_id: TREE, name: 'row 1', code: 'MKL-t-1' },
          image_count: 2,
          cover: { image_id: 'img', cid: 'bafycover', url: '/api/blobs/bafycover' },
          visibility: 'private',
          created_at: at.toISOString(),
        },
      ],
      total: 7,
      limit: 5,
      offset: 10,
    });
  });

  it('lists without a tree filter without resolving a tree; a fruit without tree or photos has neither', async () => {
    const pageOf = vi.fn(async () => ({ rows: [row({ tree_id: null, cover: null })], total: 1 }));
    const out = await service({ fruit: strictMock<Repo>({ page: pageOf }) }).list(caller, { fruit_id: FRUIT, ...page });
    expect(pageOf).toHaveBeenCalledWith(db, SCOPE, { treeId: null, farmId: null, fruitId: FRUIT }, page);
    expect(out.fruit[0]).toMatchObject({ tree: null, cover: null });
  });

  it('summarises a batch’s fruit by id, and reads nothing for none', async () => {
    const byIds = vi.fn(async () => [row({})]);
    const s = service({ fruit: strictMock<Repo>({ byIds }) });
    expect((await s.summaries([])).size).toBe(0);
    expect(byIds).not.toHaveBeenCalled();
    expect([...(await s.summaries([FRUIT])).keys()]).toEqual([FRUIT]);
  });
});
