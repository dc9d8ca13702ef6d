import { describe, expect, it, vi } from 'vitest';
import { encodeRecord } from '../../../shared/src/evidence/record.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { TreeByCodeRow } from '../../../shared/src/repos/trees.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createResolveService, type ResolveDeps } from './resolve.service.js';

const db = strictMock<Queryable>({}, 'db');
const TREE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const ACCOUNT = '11111111-1111-4111-8111-111111111111';
type Repo = ResolveDeps['trees'];
const encoded = encodeRecord({
  code: 'MKL-w3g1p1f-ab',
  species: 'unknown',
  geohash: 'w3g1p1f',
  images: [],
  created_at: '2026-10-01T00:00:00Z',
});
const row = (over: Partial<TreeByCodeRow>): TreeByCodeRow => ({
  individual_id: TREE,
  code: 'MKL-w3g1p1f-ab',
  record_cbor: encoded.bytes,
  record_cid: encoded.cid,
  record_hash: encoded.hash,
  visibility: 'public',
  species: 'durian',
  name: 'row <b>3</b>',
  farm_id: 'f1',
  created_at: new Date('2026-10-01T07:00:00Z'),
  public_name: '  Vườn\u200b Lan ',
  ...over,
});

function service(trees: Partial<Repo>, latestAnchor?: ResolveDeps['latestAnchor']) {
  return createResolveService({
    db,
    trees: strictMock<Repo>(trees, 'trees'),
    latestAnchor: latestAnchor ?? strictMock<{ fn: ResolveDeps['latestAnchor'] }>().fn,
    speciesCatalogPath: 'shared/data/species-catalog.json',
  });
}

describe('resolve service: decide', () => {
  it('answers a wrong code and a private one with the same frozen unknown, reading nothing more', async () => {
    const wrong = await service({ byCode: async () => null }).decide('MKL-nope');
    const hidden = await service({ byCode: async () => row({ visibility: 'private' }) }).decide('MKL-w3g1p1f-ab');
    expect(wrong).toEqual({ state: 'unknown' });
    expect(hidden).toBe(wrong);
    expect(Object.isFrozen(wrong)).toBe(true);
  });

  it('looks the code up trimmed and cut to 64 characters, malformed or not', async () => {
    const byCode = vi.fn(async () => null);
    await service({ byCode }).decide(`  ${'x'.repeat(100)} `);
    expect(byCode).toHaveBeenCalledWith(db, 'x'.repeat(64));
  });

  it('shows a restricted tree’s minimum: species, enrolment day, record hash and whether an anchor is confirmed', async () => {
    const latestAnchor = vi.fn(async () => ({ status: 'confirmed' }) as Awaited<ReturnType<ResolveDeps['latestAnchor']>>);
    const out = await service({ byCode: async () => row({ visibility: 'restricted' }) }, latestAnchor).decide('MKL-w3g1p1f-ab');
    expect(out).toEqual({
      state: 'restricted',
      code: 'MKL-w3g1p1f-ab',
      link: '/t/MKL-w3g1p1f-ab',
      summary: { species: 'durian', enrolled_on: '2026-10-01', record_hash: encoded.hash, anchored: true },
    });
    expect(latestAnchor).toHaveBeenCalledWith(db, 'tree', TREE);
  });

  it('shows a public tree’s record, photo count, cleaned names, species in words and place', async () => {
    const imageCount = vi.fn(async () => 4);
    const out = await service({ byCode: async () => row({}), imageCount }, async () => null).decide('MKL-w3g1p1f-ab');
    expect(out).toMatchObject({
      state: 'public',
      tree_id: TREE,
      record: encoded.record,
      record_cid: encoded.cid,
      image_count: 4,
      name: 'row 3',
      farm_id: 'f1',
      has_location: true,
      anchor: null,
      species_name: { vi: 'Sầu riêng', en: 'Durian' },
      grower_name: 'Vườn Lan',
    });
    expect(imageCount).toHaveBeenCalledWith(db, TREE);
  });

  it('says nothing of a grower who published no name, or a species outside the catalogue', async () => {
    const out = await service(
      { byCode: async () => row({ public_name: null, species: 'cây lạ' }), imageCount: async () => 0 },
      async () => null,
    ).decide('MKL-w3g1p1f-ab');
    expect(out).toMatchObject({ grower_name: null, species_name: null });
  });
});

describe('resolve service: grower name', () => {
  it('writes the cleaned name, and withdraws it when nothing is left', async () => {
    const setGrowerName = vi.fn(async () => {});
    const s = service({ setGrowerName });
    expect(await s.setGrowerName(ACCOUNT, ' <i>Nhà</i>  Bảo ')).toEqual({ public_name: 'Nhà Bảo' });
    expect(await s.setGrowerName(ACCOUNT, ' \u200b ')).toEqual({ public_name: null });
    expect(setGrowerName.mock.calls).toEqual([
      [db, ACCOUNT, 'Nhà Bảo'],
      [db, ACCOUNT, null],
    ]);
  });

  it('reads the account’s name', async () => {
    expect(await service({ growerName: async () => null }).growerName(ACCOUNT)).toEqual({ public_name: null });
  });
});
