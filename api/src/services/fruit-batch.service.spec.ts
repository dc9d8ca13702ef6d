import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import { cidForBytes } from '../../../shared/src/evidence/cid.js';
import type { BatchCounts, BatchRowRecord, NewRow } from '../../../shared/src/repos/fruit-batch.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { CSV_HEADER, createFruitBatchService, type FruitBatchDeps } from './fruit-batch.service.js';

const OWNER = '11111111-1111-4111-8111-111111111111';
const BATCH = '22222222-2222-4222-8222-222222222222';
const APPLE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const caller = { account_id: OWNER } as Caller;
/** The caller's own records, as the service scopes the repository's statements. */
const SCOPE = scopeOfCaller(caller);
const png = (shade: number) =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: { r: shade, g: 120, b: 30 } } })
    .png()
    .toBuffer();
const file = (filename: string, bytes: Buffer) => ({ field: 'files', filename, bytes }) as UploadedFile;
const notFound = () => Object.assign(new Error('not found'), { status: 404, code: 'not_found' });
const limits = {
  maxPhotos: 50,
  maxViews: 4,
  maxBytes: 10_000_000,
  maxPixels: 1_000_000,
  archive: { maxEntries: 100, maxTotalBytes: 1e8, maxRatio: 100 },
};

type Repo = FruitBatchDeps['batches'];
function setup(batches: Partial<Repo>, over: Partial<FruitBatchDeps> = {}, existing: string[] = []) {
  const storeBlob = vi.fn(async (bytes: Uint8Array) => {
    const cid = await cidForBytes(bytes);
    return { cid, created: !existing.includes(cid) };
  });
  const dropUnusedBlobs = vi.fn(async () => {});
  const enqueue = vi.fn(async () => 'job');
  const deps: FruitBatchDeps = {
    batches: strictMock<Repo>(batches, 'batches'),
    storeBlob,
    dropUnusedBlobs,
    queue: { enqueue: enqueue as never },
    trees: strictMock<FruitBatchDeps['trees']>({}, 'trees'),
    fruitSummaries: vi.fn(async () => new Map()),
    limits,
    pollMs: 1,
    logger: { error: vi.fn() },
    ...over,
  };
  return { service: createFruitBatchService(deps), storeBlob, dropUnusedBlobs, enqueue, deps };
}

describe('fruit batch service: sending a batch', () => {
  it('checks the tree the batch is narrowed to before storing any photo', async () => {
    const access = vi.fn(async () => Promise.reject(notFound()));
    const { service, storeBlob } = setup({}, { trees: { access: access as never } });
    await expect(service.create(caller, { files: [file('a.png', await png(1))], tree_id: 'theirs' })).rejects.toMatchObject({
      status: 404,
    });
    expect(access).toHaveBeenCalledWith(OWNER, 'theirs', 'read');
    expect(storeBlob).not.toHaveBeenCalled();
  });

  it("stores each fruit's photos, writes one row per fruit (a refused file listed, not kept) and queues one job per usable fruit", async () => {
    const create = vi.fn(async () => {});
    const { service, enqueue } = setup({ create });
    const [a, b] = [await png(1), await png(2)];
    const out = await service.create(caller, {
      files: [file('a.png', a), file('b.png', b), file('notes.txt', Buffer.from('not a photo at all'))],
      farm_id: 'farm-1',
    });
    expect(out).toMatchObject({ total: 3, status: 'running' });
    const [scope, batch, rows] = create.mock.calls[0] as unknown as [OwnerScope, { id: string; farm_id: string }, NewRow[]];
    expect(scope).toEqual(SCOPE);
    expect(batch).toEqual({ id: out.batch_id, tree_id: null, farm_id: 'farm-1' });
    const byName = new Map(rows.map((r) => [r.file_name, r]));
    expect(byName.get('a.png')).toMatchObject({ cid: await cidForBytes(a), views: [{ file_name: 'a.png', cid: await cidForBytes(a) }] });
    expect(byName.get('notes.txt')).toMatchObject({ cid: null });
    expect(byName.get('notes.txt')!.failed).toBeTruthy();
    const usable = rows.filter((r) => !r.failed);
    expect(enqueue).toHaveBeenCalledTimes(2);
    for (const r of usable)
      expect(enqueue).toHaveBeenCalledWith(
        'fruit_batch_item',
        { owner_id: OWNER, batch_id: out.batch_id, index: r.idx, cid: r.cid, filters: { farm_id: 'farm-1' } },
        { jobId: `fbatch-${out.batch_id}-${r.idx}` },
      );
  });

  it('when the rows cannot be written: drops the photos this batch stored (not one already there) and says why', async () => {
    const [a, b] = [await png(3), await png(4)];
    const boom = new Error('insert failed');
    const { service, dropUnusedBlobs } = setup({ create: async () => Promise.reject(boom) }, {}, [await cidForBytes(b)]);
    await expect(service.create(caller, { files: [file('a.png', a), file('b.png', b)] })).rejects.toBe(boom);
    expect(dropUnusedBlobs).toHaveBeenCalledWith([await cidForBytes(a)]);
  });

  it('when a job cannot be queued: removes the batch and its photos, and says why', async () => {
    const remove = vi.fn(async () => ['bafyx']);
    const { service, dropUnusedBlobs } = setup(
      { create: async () => {}, remove },
      { queue: { enqueue: async () => Promise.reject(new Error('queue down')) } },
    );
    await expect(service.create(caller, { files: [file('a.png', await png(5))] })).rejects.toThrow('queue down');
    expect(remove).toHaveBeenCalledWith(expect.any(String), SCOPE);
    expect(dropUnusedBlobs).toHaveBeenCalledWith(['bafyx']);
  });
});

describe('fruit batch service: reading and removing', () => {
  const record = (over: Partial<BatchRowRecord> = {}): BatchRowRecord => ({
    idx: 0,
    file_name: 'a.png',
    cid: 'bafya',
    status: 'done',
    fruit_id: APPLE,
    candidate: APPLE,
    probability: 0.97,
    verdict: 'match',
    reason_code: null,
    reason_params: null,
    views: [
      { file_name: 'a.png', cid: 'bafya' },
      { file_name: 'a2.png', cid: 'bafyb' },
    ] as never,
    ...over,
  });

  it("answers another account's batch 404 for its page, its CSV and its deletion", async () => {
    const owned = vi.fn(async () => null);
    const { service, dropUnusedBlobs } = setup({ owned: owned as never, remove: async () => null });
    await expect(service.get(caller, BATCH, 'en')).rejects.toMatchObject({ status: 404 });
    await expect(service.csv(caller, BATCH, 'en')).rejects.toMatchObject({ status: 404 });
    await expect(service.remove(caller, BATCH)).rejects.toMatchObject({ status: 404 });
    expect(owned).toHaveBeenCalledWith(BATCH, SCOPE);
    expect(dropUnusedBlobs).not.toHaveBeenCalled();
  });

  it('writes the CSV with one line per fruit, its views joined in one cell, the fruit named', async () => {
    const summaries = new Map([
      [APPLE, { individual_id: APPLE, name: 'Táo 7', tree: { tree_id: 't1', name: 'Hàng 3', code: 'ML-1' } } as never],
    ]);
    const { service } = setup(
      { owned: (async () => ({ id: BATCH })) as never, rows: async () => [record()] },
      { fruitSummaries: async () => summaries },
    );
    const lines = (await service.csv(caller, BATCH, 'en')).trimEnd().split('\r\n');
    expect(lines[0]).toBe(CSV_HEADER.join(','));
    expect(lines).toHaveLength(2);
    const cells = lines[1]!.split(',');
    const at = (k: (typeof CSV_HEADER)[number]) => cells[CSV_HEADER.indexOf(k)];
    expect(at('fruit_id')).toBe(APPLE);
    expect(at('verdict')).toBe('match');
    expect(at('views')).toBe('a.png | a2.png');
    expect(at('fruit_name')).toBe('Táo 7');
  });

  it('deletes a batch and releases its photos', async () => {
    const { service, dropUnusedBlobs } = setup({ remove: async () => ['bafya', 'bafyb'] });
    expect(await service.remove(caller, BATCH)).toEqual({ batch_id: BATCH, deleted: true });
    expect(dropUnusedBlobs).toHaveBeenCalledWith(['bafya', 'bafyb']);
  });

  it('follows progress: once at start, once per change, and ends when the batch is done or gone', async () => {
    const seq: (BatchCounts | null)[] = [
      { total: 2, done: 0, failed: 0, status: 'running' },
      { total: 2, done: 0, failed: 0, status: 'running' },
      { total: 2, done: 1, failed: 0, status: 'running' },
      { total: 2, done: 1, failed: 1, status: 'done' },
    ];
    const { service } = setup({ counts: vi.fn(async () => seq.shift() ?? null) });
    const seen: string[] = [];
    for await (const c of service.progress(BATCH, new AbortController().signal)) seen.push(`${c.done}/${c.failed}/${c.status}`);
    expect(seen).toEqual(['0/0/running', '1/0/running', '1/1/done']);
    const gone = setup({ counts: async () => null });
    const none: unknown[] = [];
    for await (const c of gone.service.progress(BATCH, new AbortController().signal)) none.push(c);
    expect(none).toEqual([]);
  });
});
