import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { StoredMedia } from '../../../shared/src/domain/stored-media.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { JobRecord } from '../../../shared/src/ports/queue.port.js';
import type { PublicFruitRow } from '../../../shared/src/repos/fruit-public.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createFruitPublicService, type FruitPublicDeps } from './fruit-public.service.js';

const db = strictMock<Queryable>({}, 'db');
const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const TREE = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const OWNER = '11111111-1111-4111-8111-111111111111';
type Repo = FruitPublicDeps['fruit'];
const hash = (t: string) => createHash('sha256').update(t).digest('hex');
const at = new Date('2026-11-01T08:00:00Z');
const fruitRow = (id: string, over: Partial<PublicFruitRow> = {}): PublicFruitRow => ({
  id,
  species: 'durian',
  name: null,
  created_at: at,
  tree_id: null,
  tree_public: false,
  code: null,
  ...over,
});
const photo: UploadedFile = { field: 'files', filename: 'q.jpg', mimeType: 'image/jpeg', bytes: Buffer.from('x') };
const stored: StoredMedia = { cid: 'bafyquery', filename: 'q.jpg', contentType: 'image/jpeg', size: 1, created: true };
const media = {
  withUploads: vi.fn(async (_f: UploadedFile[], _c: string, _field: string, work: (m: StoredMedia[]) => Promise<unknown>) =>
    work([stored]),
  ),
};
const done = (result: unknown): JobRecord =>
  ({ id: 'j1', name: 'fruit_lookup', state: 'completed', result, attempts: 1, created_at: '' }) as unknown as JobRecord;

function service(over: Partial<FruitPublicDeps> & { repo?: Partial<Repo> }) {
  const { repo, ...rest } = over;
  return createFruitPublicService({
    db,
    fruit: strictMock<Repo>(repo ?? {}, 'fruit'),
    media: media as unknown as FruitPublicDeps['media'],
    trees: strictMock<FruitPublicDeps['trees']>({}, 'trees'),
    queue: strictMock<FruitPublicDeps['queue']>({}, 'queue'),
    rateLimits: strictMock<FruitPublicDeps['rateLimits']>({}, 'rateLimits'),
    dropBlobs: vi.fn(async () => {}),
    logger: strictMock<FruitPublicDeps['logger']>({}, 'logger'),
    settings: { jobWaitMs: 30_000, scanTtlS: 600, perMinute: 10 },
    ...rest,
  });
}

const ranked = {
  verdict: 'match',
  match_vouched: true,
  candidates: [
    { fruit_id: A, probability: 0.9, confidence: 'match', image_ids: ['i2'] },
    { fruit_id: B, probability: 0.4, image_ids: [] },
  ],
};

describe('fruit public service: lookup', () => {
  it('ranks through a fruit_lookup job, keeps only fruit still public, links only a public tree, and drops the photo it stored', async () => {
    const enqueue = vi.fn(async () => 'j1');
    const dropBlobs = vi.fn(async () => {});
    const photos = vi.fn(async () => [{ id: 'i2', cid: 'c2' }]);
    const s = service({
      queue: strictMock<FruitPublicDeps['queue']>({ enqueue, waitFor: async () => done(ranked) }),
      dropBlobs,
      repo: { publicFruit: async () => [fruitRow(A, { tree_id: TREE, tree_public: true, code: 'MKL-t 1' })], photos },
    });
    const out = await s.lookup(photo);
    expect(enqueue).toHaveBeenCalledWith('fruit_lookup', expect.objectContaining({ images: ['bafyquery'], limit: 5 }));
    expect(out).toEqual({
      verdict: 'match',
      not_fruit: false,
      seen: null,
      match_vouched: true,
      candidates: [
        {
          fruit_id: A,
          probability: 0.9,
          confidence: 'match',
          species: 'durian',
          name: null,
          photos: [{ image_id: 'i2', cid: 'c2', url: '/api/blobs/c2' }],
          tree: { tree_id: TREE, code: 'MKL-t 1', link: '/t/MKL-t%201' },
        },
      ],
    });
    expect(photos).toHaveBeenCalledWith(db, A, ['i2'], 3);
    expect(dropBlobs).toHaveBeenCalledWith(['bafyquery']);
  });

  it('withholds a match whose fruit was unpublished meanwhile, and a candidate without a confidence vouches for nothing', async () => {
    const s = service({
      queue: strictMock<FruitPublicDeps['queue']>({ enqueue: async () => 'j1', waitFor: async () => done(ranked) }),
      repo: { publicFruit: async () => [fruitRow(B)], photos: async () => [] },
    });
    const out = await s.lookup(photo);
    expect(out.verdict).toBe('no_match');
    expect(out.candidates.map((c) => [c.fruit_id, c.confidence, c.tree])).toEqual([[B, 'unlikely', null]]);
  });

  it('answers a job not done in time 429 and keeps the photo until the job ends', async () => {
    const dropBlobs = vi.fn(async () => {});
    let finish!: () => void;
    const ended = new Promise<null>((r) => (finish = () => r(null)));
    const waitFor = vi.fn(async (_id: string, ms: number) => (ms === 30_000 ? ({ state: 'active' } as JobRecord) : ended));
    const s = service({ queue: strictMock<FruitPublicDeps['queue']>({ enqueue: async () => 'j1', waitFor }), dropBlobs });
    await expect(s.lookup(photo)).rejects.toMatchObject({ status: 429 });
    expect(dropBlobs).toHaveBeenLastCalledWith([]);
    finish();
    await vi.waitFor(() => expect(dropBlobs).toHaveBeenLastCalledWith(['bafyquery']));
  });
});

describe('fruit public service: provenance and tokens', () => {
  it('answers a fruit that is not public 404, reading nothing more', async () => {
    await expect(service({ repo: { publicFruit: async () => [] } }).provenance(A)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('shows a public fruit’s photos, count and record, nothing about its owner', async () => {
    const s = service({
      repo: {
        publicFruit: async () => [fruitRow(A)],
        photoCount: async () => 14,
        latestRecord: async () => ({ record_cid: 'rc', record_hash: 'rh' }),
        photos: async () => [],
      },
    });
    expect(await s.provenance(A)).toEqual({
      fruit_id: A,
      species: 'durian',
      name: null,
      enrolled_at: at.toISOString(),
      image_count: 14,
      photos: [],
      tree: null,
      evidence: 'recorded',
      record_cid: 'rc',
      record_hash: 'rh',
    });
  });

  it('issues a scan token bound to the offered fruit, storing only its hash, and sweeps old tokens', async () => {
    const insertToken = vi.fn(async () => {});
    const sweepTokens = vi.fn(async () => {});
    const s = service({
      queue: strictMock<FruitPublicDeps['queue']>({ enqueue: async () => 'j1', waitFor: async () => done(ranked) }),
      repo: { publicFruit: async () => [fruitRow(A), fruitRow(B)], photos: async () => [], insertToken, sweepTokens },
    });
    const out = await s.scan(photo);
    expect(insertToken).toHaveBeenCalledWith(db, { hash: hash(out.scan_token), candidates: [A, B], expiresAt: new Date(out.expires_at) });
    expect(sweepTokens).toHaveBeenCalledWith(db);
  });

  it('refuses unknown, used and expired tokens and a fruit not offered, each with its code, choosing nothing', async () => {
    const row = (over: object) => ({ candidates: [A], consumed_at: null, expires_at: new Date(Date.now() + 60_000), ...over });
    const choose = (token: object | null, fruit = A) => service({ repo: { token: async () => token as never } }).choose('tok', fruit);
    await expect(choose(null)).rejects.toMatchObject({ status: 400, code: 'fruit_scan_token_invalid' });
    await expect(choose(row({ consumed_at: at }))).rejects.toMatchObject({ status: 400, code: 'fruit_scan_token_used' });
    await expect(choose(row({ expires_at: at }))).rejects.toMatchObject({ status: 400, code: 'fruit_scan_token_expired' });
    await expect(choose(row({}), B)).rejects.toMatchObject({ status: 400, code: 'fruit_scan_not_offered' });
  });

  it('answers a fruit unpublished since the scan 404 and leaves the token usable', async () => {
    const s = service({
      repo: {
        token: async () => ({ candidates: [A], consumed_at: null, expires_at: new Date(Date.now() + 60_000) }),
        publicFruit: async () => [],
      },
    });
    await expect(s.choose('tok', A.toUpperCase())).rejects.toMatchObject({ status: 404 });
  });

  it('records the choice and answers the provenance; a choice that lost the race says why', async () => {
    const live = { candidates: [A], consumed_at: null, expires_at: new Date(Date.now() + 60_000) };
    const choose = vi.fn(async () => true);
    const repo = {
      publicFruit: async () => [fruitRow(A)],
      photoCount: async () => 0,
      latestRecord: async () => null,
      photos: async () => [],
    };
    const out = await service({ repo: { ...repo, token: async () => live, choose } }).choose('tok', A.toUpperCase());
    expect(out).toMatchObject({ fruit_id: A, evidence: 'server_only' });
    expect(choose).toHaveBeenCalledWith(db, hash('tok'), A);
    const token = vi
      .fn()
      .mockResolvedValueOnce(live)
      .mockResolvedValueOnce({ ...live, consumed_at: at });
    const lost = service({ repo: { ...repo, token, choose: async () => false } }).choose('tok', A);
    await expect(lost).rejects.toMatchObject({ status: 400, code: 'fruit_scan_token_used' });
  });

  it('publishes through the trees service’s owner-only check, as fruit', async () => {
    const setVisibility = vi.fn(async () => ({ tree_id: A, visibility: 'public' as const, code: null, link: null }));
    const out = await service({ trees: { setVisibility } }).setVisibility(OWNER, A, 'public');
    expect(out).toEqual({ fruit_id: A, visibility: 'public' });
    expect(setVisibility).toHaveBeenCalledWith(OWNER, A, 'public', 'fruit');
  });
});
