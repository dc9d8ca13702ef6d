import { buffer } from 'node:stream/consumers';
import { unzipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { decodeCursor } from '../../../shared/src/datasci/export-format.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { GalleryRow, QueryRow } from '../../../shared/src/repos/datasci-export.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createDatasciExportService, type DatasciExportDeps } from './datasci-export.service.js';

const OWNER = '11111111-1111-4111-8111-111111111111';
const callerScope = scopeOfCaller({ account_id: OWNER, token_hash: 'h' });
const OTHER = '22222222-2222-4222-8222-222222222222';
const COW = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const THEIR_COW = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const db = strictMock<Queryable>({}, 'db');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const gallery = (n: number): GalleryRow => ({
  image_id: id(n),
  cid: `bafyg${n}`,
  at: `2026-11-0${n} 08:00:00.000001+00`,
  owner_id: OWNER,
  individual_id: COW,
  kind: 'animal',
  species: 'cattle',
  farm_id: 'farm-1',
  name: 'Bông',
  content_type: 'image/jpeg',
  model: 'markless-texture',
  model_version: '3',
  models: [{ name: 'markless-texture', version: '3' }],
});
const query = (n: number, over: Partial<QueryRow> = {}): QueryRow => ({
  id: id(100 + n),
  owner_id: OWNER,
  kind: 'animal',
  image_cids: [`bafyq${n}`],
  at: `2026-11-1${n} 08:00:00+00`,
  label: 'correct',
  correct_id: COW,
  result: { verdict: 'uncertain', candidates: [{ individual_id: COW, probability: 0.6 }], model: { name: 'm', version: '1+xfeat@2' } },
  ...over,
});

function setup(rows: { gallery?: GalleryRow[]; queries?: QueryRow[] }, bytes: Record<string, Uint8Array> = {}) {
  const galleryAfter = vi.fn(async (_db: Queryable, _o: unknown, _at: string, _id: string, limit: number) =>
    (rows.gallery ?? []).slice(0, limit),
  );
  const queriesAfter = vi.fn(async (_db: Queryable, _o: unknown, _at: string, _id: string, limit: number) =>
    (rows.queries ?? []).slice(0, limit),
  );
  const count = vi.fn(async (_db: Queryable, table: string, _o: unknown, before: unknown) =>
    table === 'images' ? (before ? 0 : (rows.gallery ?? []).length) : before ? 0 : (rows.queries ?? []).length,
  );
  const rowsOf = vi.fn(async () => [
    { id: COW, owner_id: OWNER, species: 'cattle', farm_id: 'farm-1', name: 'Bông' },
    { id: THEIR_COW, owner_id: OTHER, species: 'cattle', farm_id: 'their-farm', name: 'Secret' },
  ]);
  const deps: DatasciExportDeps = {
    db,
    exports: strictMock<DatasciExportDeps['exports']>(
      { galleryAfter, queriesAfter, count, contentTypes: async () => [{ cid: 'bafyq1', content_type: 'image/png' }] } as never,
      'exports',
    ),
    individuals: { rowsOf: rowsOf as never },
    blobs: { get: vi.fn(async (cid: string) => bytes[cid] ?? null) as never },
    logger: { warn: vi.fn() },
  };
  return { service: createDatasciExportService(deps), galleryAfter, queriesAfter };
}

describe('data-science export service', () => {
  it("pages the caller's gallery photos first, then queries, with a cursor that resumes after the last item", async () => {
    const { service, galleryAfter, queriesAfter } = setup({ gallery: [gallery(1), gallery(2)], queries: [query(1), query(2)] });
    const first = await service.exportPage(callerScope, { limit: 3 });
    expect(galleryAfter).toHaveBeenCalledWith(db, callerScope, '1970-01-01T00:00:00Z', expect.any(String), 3);
    // Two photos leave room for one query on a page of three.
    expect(queriesAfter).toHaveBeenCalledWith(db, callerScope, '1970-01-01T00:00:00Z', expect.any(String), 1);
    expect(first.rows.map((r) => [r.split, r.photo_cid])).toEqual([
      ['gallery', 'bafyg1'],
      ['gallery', 'bafyg2'],
      ['query', 'bafyq1'],
    ]);
    expect(first).toMatchObject({ total: 4, before: 0 });
    expect(decodeCursor(first.next!)).toEqual({ part: 'query', at: query(1).at, id: query(1).id });
    first.stream.resume();
  });

  it('answers a cursor it never gave out with 400, reading nothing', async () => {
    const { service, galleryAfter } = setup({});
    await expect(service.exportPage(callerScope, { cursor: 'not-a-cursor', limit: 10 })).rejects.toMatchObject({
      status: 400,
      code: 'cursor_invalid',
    });
    expect(galleryAfter).not.toHaveBeenCalled();
  });

  it("writes a query's label and answer, naming only the query owner's own individuals (a granted pool's stay theirs)", async () => {
    const mine = query(1);
    const granted = query(2, { correct_id: THEIR_COW, label: 'other', result: { verdict: 'no_match', candidates: [] } });
    const { service } = setup({ queries: [mine, granted] });
    const page = await service.exportPage(callerScope, { limit: 10 });
    const [a, b] = page.rows;
    expect(a).toMatchObject({ split: 'query', identity: COW, name: 'Bông', farm_id: 'farm-1', label: 'correct', answer_top1: COW });
    expect(a!.path).toMatch(/\.png$/);
    expect(a!.model_versions).toEqual([
      { name: 'm', version: '1' },
      { name: 'xfeat', version: '2' },
    ]);
    expect(b).toMatchObject({ identity: THEIR_COW, label: 'other', label_individual_id: THEIR_COW, name: '', farm_id: '', species: '' });
    expect(page.next).toBeNull();
    page.stream.resume();
  });

  it('streams a zip of the photos (each once) and the manifests; a photo whose bytes are gone is left out with its row', async () => {
    const twice = query(1, { image_cids: ['bafyg1'] });
    const { service } = setup({ gallery: [gallery(1), gallery(2)], queries: [twice] }, { bafyg1: new Uint8Array([1, 2, 3]) });
    const page = await service.exportPage(callerScope, { limit: 10 });
    const files = unzipSync(new Uint8Array(await buffer(page.stream)));
    const photos = Object.keys(files).filter((f) => f.startsWith('images/'));
    expect(photos).toHaveLength(1);
    expect([...files[photos[0]!]!]).toEqual([1, 2, 3]);
    const manifest = new TextDecoder()
      .decode(files['manifest.jsonl'])
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { photo_cid: string; split: string });
    expect(manifest.map((r) => [r.split, r.photo_cid])).toEqual([
      ['gallery', 'bafyg1'],
      ['query', 'bafyg1'],
    ]);
    const meta = JSON.parse(new TextDecoder().decode(files['export.json'])) as Record<string, unknown>;
    expect(meta).toMatchObject({ format: 'markless-labels-1', rows: 2, items_total: 3, items_before: 0, next_cursor: null, owner: OWNER });
    expect(new TextDecoder().decode(files['manifest.csv']).trim().split('\n')).toHaveLength(3);
  });
});
