import { describe, expect, it, vi } from 'vitest';
import type { ProductStore, Product } from '../../../shared/src/domain/care/catalogue.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { CareRow, NewCareEntry } from '../../../shared/src/repos/care-log.repo.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createCareLogService, type CareLogDeps } from './care-log.service.js';

const db = strictMock<Queryable>({}, 'db');
const OWNER = '11111111-1111-4111-8111-111111111111';
const HELPER = '22222222-2222-4222-8222-222222222222';
const STRANGER = '33333333-3333-4333-8333-333333333333';
const COW = '44444444-4444-4444-8444-444444444444';
const CARE = '55555555-5555-4555-8555-555555555555';
const DAY = 86_400_000;
const cow: ResolvedEntity = { entity_type: 'animal', entity_id: COW, owner_id: OWNER, farm_id: null };

const ivermectin: Product = {
  id: 'ivermectin-1',
  name: 'Ivomec',
  active_ingredients: ['ivermectin'],
  scope: 'livestock',
  category: 'antiparasitic',
  intervals: [
    { kind: 'withdrawal', target: 'cattle', use: 'meat', days: 35 },
    { kind: 'withdrawal', target: 'pig', use: 'meat', days: 28 },
    { kind: 'pre_harvest', target: 'rice', use: 'harvest', days: 7 },
  ],
  source: { title: 'Thông tư', article: 'Điều 1', url: 'https://example.org/tt' },
};
const products = strictMock<ProductStore>({
  find: (id: string) => (id === ivermectin.id ? ivermectin : undefined),
  lookup: (text: string) => (/ivomec/i.test(text) ? [{ product: ivermectin, by: 'name' as const }] : []),
});

/** The row the database answers for an entry the service asked to write. */
const stored = (e: NewCareEntry): CareRow => ({
  ...e,
  id: CARE,
  applied_at: e.applied_at,
  withdrawal_until: e.withdrawal_until ? new Date(e.withdrawal_until) : null,
  created_at: new Date('2026-11-28T08:00:00Z'),
  deleted_at: null,
  deletion_event_id: null,
});

/** Standing as the access policy reads it: the owner, the helper holding `helperAccess`, nobody else. */
const standingOf = (helperAccess: 'read' | 'write' | null) =>
  vi.fn(async (_q: Queryable, caller: string, owner: string) => (caller === owner ? 'owner' : caller === HELPER ? helperAccess : null));

function service(over: Partial<Omit<CareLogDeps, 'entries'>> & { entries?: Partial<CareLogDeps['entries']> } = {}) {
  const { entries, ...rest } = over;
  return createCareLogService({
    db,
    entries: strictMock<CareLogDeps['entries']>({ targetSpecies: async () => 'cattle', ...entries }, 'care log repo'),
    resolveEntity: vi.fn(async (_q: Queryable, _t: string, id: string) => (id === COW ? cow : null)),
    standingFor: standingOf('write'),
    care: strictMock<CareLogDeps['care']>({ getProducts: async () => products, bannedIn: async () => [] }, 'care'),
    media: strictMock<CareLogDeps['media']>({}, 'media'),
    releaseBlobs: strictMock<{ f: CareLogDeps['releaseBlobs'] }>({}, 'blobs').f,
    logger: strictMock<CareLogDeps['logger']>({}, 'logger'),
    ...rest,
  });
}

describe('care log: who may log and read', () => {
  it('answers another account’s animal exactly as a missing one: 404, with nothing written', async () => {
    const s = service({ standingFor: standingOf(null) });
    const theirs = await s.log(STRANGER, { target_type: 'animal', target_id: COW, action: 'tắm' }).catch((e: unknown) => e);
    const missing = await s.log(OWNER, { target_type: 'animal', target_id: CARE, action: 'tắm' }).catch((e: unknown) => e);
    expect(theirs).toMatchObject({ status: 404, code: 'not_found' });
    expect(missing).toEqual(theirs);
    await expect(s.events(STRANGER, 'animal', COW)).rejects.toEqual(theirs);
    await expect(s.withdrawal(STRANGER, 'animal', COW)).rejects.toEqual(theirs);
  });

  it('lets a read grantee list the log but answers their write as 404', async () => {
    const live = vi.fn(async () => []);
    const s = service({ standingFor: standingOf('read'), entries: { live } });
    expect(await s.events(HELPER, 'animal', COW)).toEqual({ target_type: 'animal', target_id: COW, count: 0, events: [] });
    await expect(s.log(HELPER, { target_type: 'animal', target_id: COW, action: 'tắm' })).rejects.toMatchObject({ status: 404 });
  });

  it('finds an animal by its animal_did as well as by its id', async () => {
    const resolveEntity = vi.fn(async () => cow);
    const s = service({ resolveEntity, entries: { live: async () => [] } });
    await s.events(OWNER, 'animal', animalDid(COW));
    expect(resolveEntity).toHaveBeenCalledWith(db, 'animal', COW);
  });
});

describe('care log: validation comes before any look-up or write', () => {
  it('refuses an entry naming neither product nor action, and one applied in the future, with 422', async () => {
    const s = service({ resolveEntity: strictMock<{ f: CareLogDeps['resolveEntity'] }>({}, 'entities').f });
    await expect(s.log(OWNER, { target_type: 'animal', target_id: COW, product_name: '  ' })).rejects.toMatchObject({
      status: 422,
      code: 'care_product_missing',
    });
    const tomorrow = new Date(Date.now() + DAY);
    await expect(s.log(OWNER, { target_type: 'animal', target_id: COW, action: 'tắm', applied_at: tomorrow })).rejects.toMatchObject({
      status: 422,
      code: 'care_applied_in_future',
    });
  });

  it('refuses an unknown product id with 422 and writes nothing', async () => {
    await expect(service().log(OWNER, { target_type: 'animal', target_id: COW, product_id: 'nope' })).rejects.toMatchObject({
      status: 422,
      code: 'care_product_unknown',
    });
  });
});

describe('care log: what gets written', () => {
  it('writes the product’s withdrawal for the animal’s species, under the owner, with the banned check', async () => {
    const insert = vi.fn(async (_q: Queryable, e: NewCareEntry) => stored(e));
    const applied = new Date(Date.now() - DAY);
    const bannedIn = vi.fn(async () => [{ id: 'lindane', name: 'Lindane', severity: 'banned', matched: 'lindane' }]);
    const s = service({
      standingFor: standingOf('write'),
      entries: { insert },
      care: strictMock<CareLogDeps['care']>({ getProducts: async () => products, bannedIn: bannedIn as never }),
    });
    const out = await s.log(HELPER, {
      target_type: 'animal',
      target_id: COW,
      product_name: 'Ivomec',
      dose: ' 5 ml ',
      note: 'lindane?',
      applied_at: applied,
    });
    const written = insert.mock.calls[0]![1];
    expect(written).toMatchObject({
      author_id: HELPER,
      owner_id: OWNER,
      target_type: 'animal',
      target_id: COW,
      product_id: 'ivermectin-1',
      product_name: 'Ivomec',
      dose: '5 ml',
      photo_cid: null,
      applied_at: applied,
      withdrawal: { kind: 'withdrawal', target: 'cattle', interval_days: 35, source: ivermectin.source },
      banned: [{ id: 'lindane', name: 'Lindane', severity: 'banned' }],
    });
    expect(written.withdrawal_until).toBe(new Date(applied.getTime() + 35 * DAY).toISOString());
    expect(bannedIn).toHaveBeenCalledWith('Ivomec ; ivermectin ; Ivomec ; lindane?');
    expect(out.banned_check).toBe('ok');
    expect(out.entry).toMatchObject({ id: CARE, author_role: 'contributor', banned: [{ id: 'lindane' }] });
  });

  it('keeps the farmer’s longer interval, citing the farmer, and says the banned check was unavailable', async () => {
    const insert = vi.fn(async (_q: Queryable, e: NewCareEntry) => stored(e));
    const s = service({
      entries: { insert },
      care: strictMock<CareLogDeps['care']>({ getProducts: async () => products, bannedIn: async () => null }),
    });
    const out = await s.log(OWNER, { target_type: 'animal', target_id: COW, product_id: 'ivermectin-1', interval_days: 60 });
    expect(insert.mock.calls[0]![1].withdrawal).toMatchObject({
      interval_days: 60,
      source: { title: 'interval_days given by the farmer when logging' },
    });
    expect(insert.mock.calls[0]![1].banned).toBeNull();
    expect(out.banned_check).toBe('unavailable');
  });

  it('stores a packaging photo through the media service and names its cid in the entry', async () => {
    const insert = vi.fn(async (_q: Queryable, e: NewCareEntry) => stored(e));
    const withUploads = vi.fn(async (_f: UploadedFile[], _c: string, _field: string, work: (m: { cid: string }[]) => Promise<unknown>) =>
      work([{ cid: 'bafyphoto' }]),
    );
    const photo: UploadedFile = { field: 'photo', filename: 'nhan.jpg', mimeType: 'image/jpeg', bytes: Buffer.from('x') };
    const s = service({ entries: { insert }, media: strictMock<CareLogDeps['media']>({ withUploads: withUploads as never }) });
    const out = await s.log(OWNER, { target_type: 'animal', target_id: COW, action: 'tiêm', photo });
    expect(withUploads).toHaveBeenCalledWith([photo], 'image', 'photo', expect.any(Function));
    expect(insert.mock.calls[0]![1]).toMatchObject({ photo_cid: 'bafyphoto', withdrawal: null, action: 'tiêm' });
    expect(out.entry.photo_cid).toBe('bafyphoto');
  });
});

describe('care log: withdrawal status and deletion', () => {
  it('is blocked until the longest running withdrawal', async () => {
    const until = new Date(Date.now() + 5 * DAY).toISOString();
    const row = { id: CARE, withdrawal: { product_name: 'Ivomec', interval_days: 35, until } } as unknown as CareRow;
    const s = service({ entries: { blocking: async () => [row] } });
    expect(await s.withdrawal(OWNER, 'animal', COW)).toMatchObject({
      blocked: true,
      until,
      blocking: [{ care_id: CARE, interval_days: 35 }],
    });
    expect(await service({ entries: { blocking: async () => [] } }).withdrawal(OWNER, 'animal', COW)).toMatchObject({
      blocked: false,
      until: null,
    });
  });

  it('answers a malformed id without asking the database, and another’s or a gone entry, with the same 404', async () => {
    const remove = vi.fn(async () => null);
    const s = service({ entries: { remove } });
    const bad = await s.remove(OWNER, 'not-a-uuid').catch((e: unknown) => e);
    expect(remove).not.toHaveBeenCalled();
    const gone = await s.remove(OWNER, CARE.toUpperCase()).catch((e: unknown) => e);
    expect(remove).toHaveBeenCalledWith(db, CARE, OWNER);
    expect(bad).toMatchObject({ status: 404, code: 'not_found' });
    expect(gone).toEqual(bad);
  });

  it('releases the packaging photo of a deleted entry, and a failed release is logged, not answered', async () => {
    const deleted_at = new Date('2026-11-28T09:00:00Z');
    const releaseBlobs = vi.fn(async () => {
      throw new Error('disk');
    });
    const error = vi.fn();
    const s = service({
      entries: { remove: async () => ({ id: CARE, deleted_at, old_cid: 'bafyphoto' }) },
      releaseBlobs,
      logger: strictMock<CareLogDeps['logger']>({ error }),
    });
    expect(await s.remove(OWNER, CARE)).toEqual({ deleted: CARE, deleted_at: deleted_at.toISOString() });
    expect(releaseBlobs).toHaveBeenCalledWith(['bafyphoto']);
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ err: expect.any(Error) }), 'care photo release failed');
  });
});
