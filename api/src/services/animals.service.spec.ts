import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { AnimalSummaryRow } from '../../../shared/src/repos/animals.repo.js';
import type { AppendInput, StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createAnimalsService, MODEL3D_NOT_BUILT, type AnimalsDeps } from './animals.service.js';

const OWNER = '11111111-1111-4111-8111-111111111111';
const GRANTEE = '22222222-2222-4222-8222-222222222222';
const COW = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const tx = strictMock<Queryable>({}, 'tx');
const db = strictMock<AnimalsDeps['db']>({ transaction: (async <T>(fn: (q: Queryable) => Promise<T>) => fn(tx)) as never }, 'db');
const notFound = () => Object.assign(new Error('not found'), { status: 404, code: 'not_found' });
const at = new Date('2026-11-28T08:00:00Z');
const summaryRow = (over: Partial<AnimalSummaryRow> = {}): AnimalSummaryRow => ({
  id: COW,
  farm_id: 'farm-1',
  species: 'cattle',
  name: 'Bông',
  created_at: at,
  image_count: 3,
  cover: { image_id: 'img-1', cid: 'bafycover' },
  ...over,
});
/** trees.access as the access policy answers: the owner owns COW, the grantee may only read it. */
const access = vi.fn(async (callerId: string, id: string, need: string) => {
  if (id !== COW) throw notFound();
  if (callerId === OWNER) return { id, owner_id: OWNER, standing: 'owner' as const };
  if (callerId === GRANTEE && need === 'read') return { id, owner_id: OWNER, standing: 'grant_read' as const };
  throw notFound();
});

function setup(over: { [K in keyof AnimalsDeps]?: Partial<AnimalsDeps[K]> } = {}) {
  const appended: AppendInput[] = [];
  const record = vi.fn(async () => {});
  const deps = {
    db,
    animals: strictMock<AnimalsDeps['animals']>(over.animals ?? {}, 'animals'),
    trees: strictMock<AnimalsDeps['trees']>({ access: access as never, ...over.trees }, 'trees'),
    views: strictMock<AnimalsDeps['views']>(over.views ?? {}, 'views'),
    media: strictMock<AnimalsDeps['media']>(over.media ?? {}, 'media'),
    jobs: strictMock<AnimalsDeps['jobs']>(over.jobs ?? {}, 'jobs'),
    species: strictMock<AnimalsDeps['species']>(over.species ?? {}, 'species'),
    appendChainEvent: vi.fn(async (_tx: Queryable, input: AppendInput) => {
      appended.push(input);
      return { event_id: 'ev1', seq: 4, leaf_hash: 'leaf' } as StoredEvent;
    }),
    activity: { record },
  } as AnimalsDeps;
  return { service: createAnimalsService(deps), appended, record };
}

describe('animals service: lists', () => {
  it("pages the caller's animals of one farm, as metadata only", async () => {
    const countOnFarm = vi.fn(async () => 1);
    const pageOnFarm = vi.fn(async () => [summaryRow({ created_at: '2026-11-28T08:00:00.000Z' })]);
    const { service } = setup({ animals: { countOnFarm, pageOnFarm } });
    const owner = { account_id: OWNER } as Caller;
    const page = await service.list(owner, { farm_id: 'farm-1', limit: 20, offset: 0 });
    expect(countOnFarm).toHaveBeenCalledWith(db, scopeOfCaller(owner), 'farm-1', null);
    expect(pageOnFarm).toHaveBeenCalledWith(db, scopeOfCaller(owner), 'farm-1', null, 20, 0);
    expect(page).toEqual({
      farm_id: 'farm-1',
      total: 1,
      limit: 20,
      offset: 0,
      animals: [
        {
          animal_did: animalDid(COW),
          individual_id: COW,
          farm_id: 'farm-1',
          species: 'cattle',
          name: 'Bông',
          image_count: 3,
          cover: { image_id: 'img-1', cid: 'bafycover' },
          created_at: at.toISOString(),
        },
      ],
    });
  });

  it("filters by species under any spelling the farm's animals carry, and by the asked word when the farm has none", async () => {
    const countOnFarm = vi.fn(async () => 0);
    const pageOnFarm = vi.fn(async () => []);
    const farmSpecies = vi.fn(async () => [{ id: 'cattle', spellings: ['cattle', 'Bò'] }]);
    const { service } = setup({ animals: { countOnFarm, pageOnFarm }, species: { farmSpecies: farmSpecies as never } });
    await service.list({ account_id: OWNER } as Caller, { farm_id: 'farm-1', species: 'bò', limit: 5, offset: 0 });
    expect(farmSpecies).toHaveBeenCalledWith({ account_id: OWNER }, 'farm-1');
    expect(countOnFarm).toHaveBeenLastCalledWith(db, scopeOfCaller({ account_id: OWNER } as Caller), 'farm-1', ['cattle', 'Bò']);
    await service.list({ account_id: OWNER } as Caller, { farm_id: 'farm-1', species: 'goat', limit: 5, offset: 0 });
    expect(countOnFarm).toHaveBeenLastCalledWith(db, scopeOfCaller({ account_id: OWNER } as Caller), 'farm-1', ['goat']);
  });
});

describe('animals service: one animal', () => {
  it("reads an animal through the access policy, with its views and whether the caller owns it; another's is 404", async () => {
    const list = vi.fn(async () => ({ tree_id: COW, views: [{ view: 'left' }] }));
    const { service } = setup({ animals: { summary: async () => summaryRow() }, views: { list: list as never } });
    expect(await service.get(OWNER, animalDid(COW), false)).toMatchObject({
      animal_did: animalDid(COW),
      owner: true,
      views: [{ view: 'left' }],
    });
    const shared = await service.get(GRANTEE, COW, true);
    expect(shared.owner).toBe(false);
    expect(shared).not.toHaveProperty('tree_id');
    expect(list).toHaveBeenLastCalledWith(GRANTEE, COW, true, 'animal');
    const stranger = '33333333-3333-4333-8333-333333333333';
    await expect(service.get(stranger, COW, false)).rejects.toMatchObject({ status: 404 });
    // Not an animal reference at all: the same 404, before any access check.
    access.mockClear();
    await expect(service.get(OWNER, 'did:markless:tree:x', false)).rejects.toMatchObject({ status: 404 });
    expect(access).not.toHaveBeenCalled();
  });

  it('renames through the shared cleaning, and answers null when nothing is left of the name', async () => {
    const rename = vi.fn(async (_c: string, _id: string, name: string) => (name.trim() ? { tree_id: COW, name: name.trim() } : null));
    const { service } = setup({ trees: { rename: rename as never } });
    expect(await service.rename(OWNER, animalDid(COW), ' Mận ')).toEqual({ animal_did: animalDid(COW), name: 'Mận' });
    expect(rename).toHaveBeenCalledWith(OWNER, COW, ' Mận ', 'animal');
    expect(await service.rename(OWNER, COW, '   ')).toBeNull();
  });

  it("deletes only as the owner: the animal's chain records it with what was removed, and the audit row names the event", async () => {
    const photoCounts = vi.fn(async () => ({ images: 3, descriptors: 6 }));
    const remove = vi.fn(async () => {});
    const { service, appended, record } = setup({ animals: { photoCounts, remove } });
    await expect(service.remove({ account_id: GRANTEE } as Caller, COW)).rejects.toMatchObject({ status: 404 });
    expect(remove).not.toHaveBeenCalled();
    const out = await service.remove({ account_id: OWNER } as Caller, animalDid(COW));
    expect(out).toEqual({
      animal_did: animalDid(COW),
      deleted: true,
      images_removed: 3,
      embeddings_removed: 6,
      audit_event: { event_id: 'ev1', seq: 4, leaf_hash: 'leaf' },
    });
    expect(appended).toEqual([
      {
        entity_type: 'animal',
        entity_id: COW,
        owner_id: OWNER,
        author_id: OWNER,
        author_role: 'owner',
        body: { type: 'deleted', animal_did: animalDid(COW), images_removed: 3, embeddings_removed: 6 },
      },
    ]);
    expect(remove).toHaveBeenCalledWith(tx, COW);
    expect(record).toHaveBeenCalledWith(
      tx,
      OWNER,
      'animal.delete',
      expect.objectContaining({ event_id: 'ev1', images: 3, descriptors: 6 }),
    );
  });

  it('answers the three 3D states: not built, failed with its gate, built with its model', async () => {
    const model3d = vi
      .fn()
      .mockResolvedValueOnce(null)
      .mockResolvedValueOnce({ status: 'failed', reason_code: 'too_few_views', gate: { views: 2 }, trust: null, model_cid: null })
      .mockResolvedValueOnce({ status: 'built', reason_code: null, gate: null, trust: 0.8, model_cid: 'bafymodel' });
    const { service } = setup({ animals: { model3d } });
    expect(await service.model3d(OWNER, COW)).toMatchObject({
      available: false,
      status: 'not_built',
      meta: { reason_code: MODEL3D_NOT_BUILT },
    });
    expect(await service.model3d(OWNER, COW)).toMatchObject({
      available: false,
      status: 'failed',
      meta: { reason_code: 'too_few_views', gate: { views: 2 } },
    });
    expect(await service.model3d(GRANTEE, COW)).toMatchObject({
      available: true,
      status: 'built',
      model_cid: 'bafymodel',
      meta: { trust: 0.8 },
    });
  });

  it("verifies 1:1 by identifying the stored photos against the caller's own pool, after the access check", async () => {
    const run = vi.fn(async () => ({ done: true }) as never);
    const withUploads = vi.fn(async (_f: UploadedFile[], _c: string, _field: string, work: (m: { cid: string }[]) => Promise<unknown>) =>
      work([{ cid: 'bafyq' }]),
    );
    const { service } = setup({ media: { withUploads: withUploads as never }, jobs: { run } });
    const out = await service.verify({ account_id: GRANTEE } as Caller, COW, [], ['face']);
    expect(out).toEqual({ outcome: { done: true }, id: COW });
    expect(run).toHaveBeenCalledWith('identify', {
      owner_id: GRANTEE,
      query_id: expect.any(String),
      kind: 'animal',
      images: ['bafyq'],
      filters: {},
      channels: ['face'],
    });
    await expect(service.verify({ account_id: '33333333-3333-4333-8333-333333333333' } as Caller, COW, [])).rejects.toMatchObject({
      status: 404,
    });
    expect(withUploads).toHaveBeenCalledTimes(1);
  });
});
