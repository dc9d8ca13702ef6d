import { describe, expect, it, vi } from 'vitest';
import type { StoredMedia } from '../../../shared/src/domain/stored-media.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createIndividualsService, type IndividualsDeps } from './individuals.service.js';

const caller = { account_id: 'owner-1' } as Caller;
const db = strictMock<Queryable>({}, 'db');
const file = (name: string): UploadedFile => ({ field: 'files', filename: name, mimeType: 'image/jpeg', bytes: Buffer.from([1]) });
const stored = (files: UploadedFile[]): StoredMedia[] =>
  files.map((f, i) => ({ cid: `cid-${i}`, filename: f.filename, contentType: 'image/jpeg', size: 1, created: true }));

function service(decision: 'allow' | 'not_found' | 'forbidden') {
  const access = vi.fn(async () => ({ decision, individual: { id: 'tree-1', farm_id: 'vuon' }, standing: null }));
  const withUploads = vi.fn(async (files: UploadedFile[], _cls: string, _field: string, work: (m: StoredMedia[]) => Promise<unknown>) =>
    work(stored(files)),
  );
  const run = vi.fn(async () => ({ done: true, job_id: 'j-1', result: {} }));
  const record = vi.fn(async () => {});
  const deps: IndividualsDeps = {
    db,
    access: access as unknown as IndividualsDeps['access'],
    activity: strictMock({ record }, 'activity'),
    media: strictMock({ withUploads: withUploads as never }, 'media'),
    jobs: strictMock({ run: run as never }, 'jobs'),
    speciesCatalogPath: 'shared/data/species-catalog.json',
    imageMaxPixels: 40_000_000,
  };
  return { s: createIndividualsService(deps), access, withUploads, run, record };
}

describe('individuals service', () => {
  it('answers an individual the caller may not own, or that is missing, as not found before storing a byte', async () => {
    for (const decision of ['not_found', 'forbidden'] as const) {
      const { s, withUploads, run } = service(decision);
      await expect(s.addViews(caller, 'tree', 'tree-1', [file('a.jpg')], 'enroll')).rejects.toMatchObject({
        status: 404,
        code: 'not_found',
      });
      await expect(s.addQueryPhotos(caller, 'animal', 'cow-1', ['q'], 'query-1')).rejects.toMatchObject({ status: 404 });
      await expect(s.storeVideo(caller, 'tree-1', [file('v.mp4')])).rejects.toMatchObject({ status: 404 });
      expect(withUploads).not.toHaveBeenCalled();
      expect(run).not.toHaveBeenCalled();
    }
  });

  it('asks the access policy for the owner standing, whoever the id names', async () => {
    const { s, access } = service('allow');
    await s.owned(caller, 'tree-1', 'tree');
    expect(access).toHaveBeenCalledWith(db, 'owner-1', 'tree-1', 'tree', 'owner');
  });

  it('adds a confirmed query’s stored photos to the animal, past quality warnings, labelled with the query', async () => {
    const { s, run } = service('allow');
    await s.addQueryPhotos(caller, 'animal', 'cow-1', ['cid-a', 'cid-b'], 'query-1');
    expect(run).toHaveBeenCalledWith('enroll', {
      owner_id: 'owner-1',
      individual_id: 'cow-1',
      kind: 'animal',
      create: false,
      attrs: { query_id: 'query-1' },
      images: [
        { cid: 'cid-a', source: 'confirm', filename: 'query-1' },
        { cid: 'cid-b', source: 'confirm', filename: 'query-2' },
      ],
      accept_warnings: true,
    });
  });

  it('adds views with the source given and carries the owner’s "keep anyway" only when asked', async () => {
    const { s, run } = service('allow');
    await s.addViews(caller, 'tree', 'tree-1', [file('a.jpg')], 'second_angle');
    await s.addViews(caller, 'tree', 'tree-1', [file('b.jpg')], 'enroll', { acceptWarnings: true });
    const [first, second] = run.mock.calls.map((c) => (c as unknown[])[1] as Record<string, unknown>);
    expect(first).toMatchObject({ create: false, images: [{ cid: 'cid-0', source: 'second_angle', filename: 'a.jpg' }] });
    expect(first).not.toHaveProperty('accept_warnings');
    expect(second).toMatchObject({ accept_warnings: true });
  });

  it('identifies with a fresh query id and the caller’s own id, never one from the request', async () => {
    const { s, run } = service('allow');
    await s.identify(caller, { kind: 'fruit', files: [file('a.jpg'), file('b.jpg')], filters: { tree_id: 't' } });
    await s.identify(caller, { kind: 'fruit', files: [file('a.jpg')], filters: {} });
    const [a, b] = run.mock.calls.map((c) => (c as unknown[])[1] as { owner_id: string; query_id: string; images: string[] });
    expect(a).toMatchObject({ owner_id: 'owner-1', kind: 'fruit', images: ['cid-0', 'cid-1'], filters: { tree_id: 't' } });
    expect(a!.query_id).not.toBe(b!.query_id);
  });

  it('stores a tree’s video as the caller’s and records it on the activity log', async () => {
    const { s, withUploads, record } = service('allow');
    expect(await s.storeVideo(caller, 'tree-1', [file('v.mp4')])).toEqual({ cid: 'cid-0', size: 1, content_type: 'image/jpeg' });
    expect(withUploads).toHaveBeenCalledWith(expect.any(Array), 'video', 'file', expect.any(Function), 'owner-1');
    expect(record).toHaveBeenCalledWith(db, 'owner-1', 'tree.fruit_video', { tree_id: 'tree-1', cid: 'cid-0', size: 1 });
  });
});
