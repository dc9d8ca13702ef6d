import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { MergeSummary } from '../../../shared/src/repos/animal-merge.repo.js';
import type { AppendInput, StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createAnimalMergeService, type AnimalMergeDeps } from './animal-merge.service.js';

const OWNER = '11111111-1111-4111-8111-111111111111';
const INTO = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const FROM = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const MERGE = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const caller = { account_id: OWNER } as Caller;
const tx = strictMock<Queryable>({}, 'tx');
const at = new Date('2026-11-28T08:00:00Z');

/** The deps with a transaction that runs on `tx`, both animals the caller's, and a recording chain. */
function setup(
  merges: Partial<AnimalMergeDeps['merges']>,
  owned: AnimalMergeDeps['individuals']['owned'] = vi.fn(async () => ({}) as never),
) {
  const appended: AppendInput[] = [];
  const appendChainEvent = vi.fn(async (_tx: Queryable, input: AppendInput) => {
    appended.push(input);
    return { event_id: `e${appended.length}`, seq: appended.length, leaf_hash: `h${appended.length}` } as StoredEvent;
  });
  const record = vi.fn(async () => {});
  const transaction = vi.fn(async <T>(fn: (q: Queryable) => Promise<T>) => fn(tx));
  const deps: AnimalMergeDeps = {
    db: strictMock<AnimalMergeDeps['db']>({ transaction } as never, 'db'),
    individuals: { owned },
    merges: strictMock<AnimalMergeDeps['merges']>(merges, 'merges'),
    appendChainEvent,
    loadChain: vi.fn(async () => [{ seq: 0, body: { type: 'enroll' }, created_at: at, leaf_hash: 'fromhead' }] as never),
    activity: { record },
  };
  return { service: createAnimalMergeService(deps), appended, record, transaction, owned };
}

const summary = (over: Partial<MergeSummary> = {}): MergeSummary => ({
  id: MERGE,
  owner_id: OWNER,
  into_id: INTO,
  from_id: FROM,
  photos: [
    { cid: 'bafy1', source: 'enroll', in_record: true, width: 10, height: 10 },
    { cid: 'bafy2', source: 'enroll', in_record: true, width: 10, height: 10 },
  ],
  copies: ['c1', 'c2'],
  created_at: at,
  undone_at: null,
  into_name: 'Bông',
  from_name: 'Bông hai',
  ...over,
});

describe('animal merge service: merging', () => {
  it('refuses to merge an animal into itself before reading anything', async () => {
    const { service, owned, transaction } = setup({});
    await expect(service.merge(caller, animalDid(INTO), INTO)).rejects.toMatchObject({ status: 422, code: 'merge_same' });
    expect(owned).not.toHaveBeenCalled();
    expect(transaction).not.toHaveBeenCalled();
  });

  it("answers another account's or a missing animal 404 and writes nothing", async () => {
    const notYours = Object.assign(new Error('not found'), { status: 404, code: 'not_found' });
    const { service, transaction } = setup(
      {},
      vi.fn(async (_c, id: string) => (id === FROM ? Promise.reject(notYours) : ({} as never))),
    );
    await expect(service.merge(caller, INTO, FROM)).rejects.toMatchObject({ status: 404 });
    await expect(service.merge(caller, 'not-an-animal', FROM)).rejects.toMatchObject({ status: 404 });
    expect(transaction).not.toHaveBeenCalled();
  });

  it("copies each of from's photos onto into under new ids, retires from, remembers the merge and records it in both chains", async () => {
    const copyImage = vi.fn(async (_tx: Queryable, id: string, _into: string, _fresh: string, _p: unknown) => id !== 'p3');
    const deleteImages = vi.fn(async () => 3);
    const retire = vi.fn(async () => {});
    const insertMerge = vi.fn(async (_tx: Queryable, _m: unknown) => {});
    const photos = ['p1', 'p2', 'p3'].map((id) => ({ id, cid: `cid-${id}`, source: 'enroll', in_record: true, width: 1, height: 1 }));
    const { service, appended, record } = setup({ photosOf: vi.fn(async () => photos), copyImage, deleteImages, retire, insertMerge });
    const out = await service.merge(caller, animalDid(INTO), animalDid(FROM));
    // The one photo that could not be copied (already on into) is not counted as moved.
    expect(out).toMatchObject({ animal_did: animalDid(INTO), merged: animalDid(FROM), photos_moved: 2 });
    expect(copyImage.mock.calls.map((c) => [c[1], c[2]])).toEqual([
      ['p1', INTO],
      ['p2', INTO],
      ['p3', INTO],
    ]);
    const fresh = copyImage.mock.calls.map((c) => c[3]);
    expect(new Set(fresh).size).toBe(3);
    expect(fresh).not.toContain('p1');
    expect(deleteImages).toHaveBeenCalledWith(tx, ['p1', 'p2', 'p3'], FROM);
    expect(retire).toHaveBeenCalledWith(tx, FROM, INTO);
    const stored = insertMerge.mock.calls[0]![1] as { id: string; copies: string[]; photos: unknown[]; owner_id: string };
    expect(stored).toMatchObject({ id: out.merge_id, owner_id: OWNER, into_id: INTO, from_id: FROM, copies: fresh.slice(0, 2) });
    expect(stored.photos).toEqual(photos.map(({ id: _id, ...p }) => p));
    // into's event carries from's chain head and a summary of its events; from's says where it went.
    expect(appended.map((e) => [e.entity_id, e.owner_id, e.body.type])).toEqual([
      [INTO, OWNER, 'merged'],
      [FROM, OWNER, 'merged_into'],
    ]);
    expect(appended[0]!.body).toMatchObject({
      from: animalDid(FROM),
      from_chain_head: 'fromhead',
      from_events: [{ seq: 0, type: 'enroll' }],
    });
    expect(record).toHaveBeenCalledWith(tx, OWNER, 'animal.merge', expect.objectContaining({ merge_id: out.merge_id, moved: 2 }));
  });
});

describe('animal merge service: undoing', () => {
  it("answers a malformed id, another account's and a missing merge the same 404 before any write", async () => {
    const findMerge = vi.fn(async () => null);
    const { service } = setup({ findMerge });
    for (const id of ['nope', MERGE]) await expect(service.unmerge(caller, id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    // Only the well-formed id was looked up, locked, and by the caller's account.
    expect(findMerge).toHaveBeenCalledTimes(1);
    expect(findMerge).toHaveBeenCalledWith(tx, scopeOfCaller(caller), MERGE, true);
  });

  it('refuses a merge already undone, and one whose animal is gone, with 409', async () => {
    const undone = setup({ findMerge: vi.fn(async () => summary({ undone_at: at })) });
    await expect(undone.service.unmerge(caller, MERGE)).rejects.toMatchObject({ status: 409, code: 'merge_already_undone' });
    const gone = setup({ findMerge: vi.fn(async () => summary()), isLive: vi.fn(async () => false) });
    await expect(gone.service.unmerge(caller, MERGE)).rejects.toMatchObject({ status: 409, code: 'unmerge_into_gone' });
    expect(gone.appended).toEqual([]);
  });

  it("gives from its photos back from into's rows, removes the merge's copies and records both acts; a photo into no longer has is lost", async () => {
    const imageByCid = vi.fn(async (_tx: Queryable, _id: string, cid: string) => (cid === 'bafy1' ? 'row1' : null));
    const copyImage = vi.fn(async () => true);
    const deleteImages = vi.fn(async () => 1);
    const revive = vi.fn(async () => {});
    const markUndone = vi.fn(async () => {});
    const { service, appended, record } = setup({
      findMerge: vi.fn(async () => summary()),
      isLive: vi.fn(async () => true),
      imageByCid,
      copyImage,
      deleteImages,
      revive,
      markUndone,
    });
    const out = await service.unmerge(caller, MERGE);
    expect(out).toMatchObject({ merge_id: MERGE, animal_did: animalDid(INTO), restored: animalDid(FROM) });
    expect(out).toMatchObject({ photos_restored: 1, photos_removed: 1, photos_lost: 1 });
    expect(copyImage).toHaveBeenCalledWith(tx, 'row1', FROM, expect.any(String), summary().photos[0]);
    expect(deleteImages).toHaveBeenCalledWith(tx, ['c1', 'c2'], INTO);
    expect(revive).toHaveBeenCalledWith(tx, FROM);
    expect(markUndone).toHaveBeenCalledWith(tx, MERGE);
    expect(appended.map((e) => [e.entity_id, e.body.type])).toEqual([
      [INTO, 'unmerged'],
      [FROM, 'restored'],
    ]);
    expect(record).toHaveBeenCalledWith(tx, OWNER, 'animal.unmerge', expect.objectContaining({ restored: 1, removed: 1 }));
  });
});

describe('animal merge service: reading', () => {
  it("lists an owned animal's merges as the owner reads them, after the access check", async () => {
    const mergesOf = vi.fn(async () => [summary()]);
    const owned = vi.fn(async () => ({}) as never);
    const { service } = setup({ mergesOf }, owned);
    const out = await service.list(caller, animalDid(INTO));
    expect(owned).toHaveBeenCalledWith(caller, INTO, 'animal');
    expect(mergesOf).toHaveBeenCalledWith(expect.anything(), scopeOfCaller(caller), INTO);
    expect(out.merges).toEqual([
      {
        merge_id: MERGE,
        into: { animal_did: animalDid(INTO), name: 'Bông' },
        from: { animal_did: animalDid(FROM), name: 'Bông hai' },
        photos_moved: 2,
        photos: [
          { cid: 'bafy1', url: '/api/blobs/bafy1' },
          { cid: 'bafy2', url: '/api/blobs/bafy2' },
        ],
        created_at: at.toISOString(),
        undone_at: null,
      },
    ]);
  });
});
