import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { textureImage } from '../../../test/support/images.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createScanService, SCAN_TOKEN_TTL_S, SCAN_TOP_K, type ScanDeps } from './scan.service.js';

const db = strictMock<Queryable>({}, 'db');
/** The caller's own tokens and trees, as the route scopes them. */
const OWNER = scopeOfJob({ owner_id: '11111111-1111-4111-8111-111111111111' });
type Repo = ScanDeps['scans'];
const hash = (t: string) => createHash('sha256').update(t).digest('hex');

function service(scans: Partial<Repo>) {
  return createScanService({
    db,
    scans: strictMock<Repo>(scans, 'scans'),
    speciesCatalogPath: 'shared/data/species-catalog.json',
    imageMaxPixels: 50_000_000,
  });
}

let photo: UploadedFile;
beforeAll(async () => {
  photo = { field: 'files', filename: 'bark.jpg', mimeType: 'image/jpeg', bytes: await textureImage(3, 128) };
});

describe('scan service: issue', () => {
  it('checks the photo before ranking or writing anything', async () => {
    const s = service({});
    await expect(s.issue(OWNER, undefined, 'vi')).rejects.toMatchObject({ status: 422, code: 'file_missing' });
    const text = { ...photo, bytes: Buffer.from('not a photo at all') };
    await expect(s.issue(OWNER, text, 'vi')).rejects.toMatchObject({ status: 422, code: 'file_wrong_type' });
    const cut = { ...photo, bytes: photo.bytes.subarray(0, photo.bytes.length / 2) };
    await expect(s.issue(OWNER, cut, 'vi')).rejects.toMatchObject({ status: 422 });
  });

  it('offers the owner’s species merged across spellings, most trees first, then catalogue trees; stores only the token’s hash', async () => {
    const insert = vi.fn(async () => {});
    const sweepExpired = vi.fn(async () => {});
    const ownTreeSpecies = vi.fn(async () => [
      { species: 'mango', n: 2 },
      { species: 'Durian ', n: 2 },
      { species: 'durian', n: 1 },
    ]);
    const before = Date.now();
    const out = await service({ ownTreeSpecies, insert, sweepExpired }).issue(OWNER, photo, 'vi');
    expect(out.candidates.slice(0, 2)).toEqual([
      { species: 'Durian', source: 'orchard', trees: 3 },
      { species: 'mango', source: 'orchard', trees: 2 },
    ]);
    expect(out.candidates).toHaveLength(SCAN_TOP_K);
    expect(out.candidates.slice(2).every((c) => c.source === 'catalog' && c.trees === 0)).toBe(true);
    expect(out.top_k).toEqual(out.candidates.map((c) => c.species));
    expect(out).toMatchObject({ species_guess: 'Durian', need_confirm: true });
    const expires = new Date(out.expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + SCAN_TOKEN_TTL_S * 1000);
    expect(insert).toHaveBeenCalledWith(db, OWNER, {
      hash: hash(out.scan_token),
      speciesGuess: 'Durian',
      topK: out.top_k,
      expiresAt: new Date(expires),
    });
    expect(sweepExpired).toHaveBeenCalledWith(db, OWNER);
  });
});

describe('scan service: confirm', () => {
  it('answers wrong, used, expired and foreign tokens alike, consuming nothing', async () => {
    const liveOffer = vi.fn(async () => null);
    await expect(service({ liveOffer }).confirm(OWNER, 'tok', 'durian')).rejects.toMatchObject({ status: 400, code: 'scan_token_invalid' });
    expect(liveOffer).toHaveBeenCalledWith(db, hash('tok'), OWNER);
  });

  it('refuses a species the token did not offer and leaves the token usable', async () => {
    const s = service({ liveOffer: async () => ['durian', 'mango'] });
    await expect(s.confirm(OWNER, 'tok', 'pomelo')).rejects.toMatchObject({ status: 400, code: 'scan_species_not_offered' });
  });

  it('consumes the token and answers the offered spelling of the chosen species', async () => {
    const consume = vi.fn(async () => true);
    const s = service({ liveOffer: async () => ['Sầu riêng', 'mango'], consume });
    expect(await s.confirm(OWNER, 'tok', '  SẦU RIÊNG ')).toEqual({ species: 'Sầu riêng' });
    expect(consume).toHaveBeenCalledWith(db, hash('tok'), OWNER);
  });

  it('answers a confirm that lost the race for the token as an invalid token', async () => {
    const s = service({ liveOffer: async () => ['durian'], consume: async () => false });
    await expect(s.confirm(OWNER, 'tok', 'durian')).rejects.toMatchObject({ status: 400, code: 'scan_token_invalid' });
  });
});
