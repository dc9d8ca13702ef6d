import { describe, expect, it, vi } from 'vitest';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createAnimalReviewService, type AnimalReviewDeps } from './animal-review.service.js';

const caller = { account_id: 'owner-1' } as Caller;
const BONG = '6f1c2b8e-3a4d-4e5f-8a9b-0c1d2e3f4a5b';
const MAN = '7a2d3c9f-4b5e-4f60-9bac-1d2e3f4a5b6c';
const db = strictMock<Queryable>({}, 'db');
const stored = { image_cids: ['cid-q'], result: { verdict: 'uncertain', candidates: [{ individual_id: BONG }, { individual_id: MAN }] } };

function service(over: Partial<AnimalReviewDeps> = {}) {
  const ownAnswer = vi.fn(async () => stored);
  const owned = vi.fn(async () => ({}));
  const addQueryPhotos = vi.fn(async () => ({ done: true, job_id: 'j', result: {} }) as never);
  const record = vi.fn(async () => ({}) as never);
  const deps: AnimalReviewDeps = {
    db,
    answers: strictMock({ ownAnswer }, 'answers'),
    individuals: strictMock({ owned: owned as never, addQueryPhotos }, 'individuals'),
    verdicts: strictMock({ record }, 'verdicts'),
    ...over,
  };
  return { s: createAnimalReviewService(deps), ownAnswer, owned, addQueryPhotos, record };
}

describe('animal review service', () => {
  it('confirms the top candidate as correct, labels it and adds the query photos to that animal', async () => {
    const { s, ownAnswer, owned, record, addQueryPhotos } = service();
    const out = await s.confirm(caller, 'q-1', BONG);
    expect(out).toMatchObject({ id: BONG, verdict: 'correct' });
    expect(ownAnswer).toHaveBeenCalledWith(db, 'q-1', scopeOfCaller(caller), 'animal');
    expect(owned).toHaveBeenCalledWith(caller, BONG, 'animal');
    expect(record).toHaveBeenCalledWith(caller, { query_id: 'q-1', verdict: 'correct', correct_id: BONG, kind: 'animal' });
    expect(addQueryPhotos).toHaveBeenCalledWith(caller, 'animal', BONG, ['cid-q'], 'q-1');
  });

  it('confirms a candidate that was not first as `other`', async () => {
    const { s, record } = service();
    expect((await s.confirm(caller, 'q-1', MAN)).verdict).toBe('other');
    expect(record).toHaveBeenCalledWith(caller, expect.objectContaining({ verdict: 'other', correct_id: MAN }));
  });

  it('answers another account’s query like a missing one, labelling nothing and adding no photo', async () => {
    const { s, record, addQueryPhotos } = service({ answers: strictMock({ ownAnswer: vi.fn(async () => null) }) });
    await expect(s.confirm(caller, 'q-x', BONG)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(record).not.toHaveBeenCalled();
    expect(addQueryPhotos).not.toHaveBeenCalled();
  });

  it('refuses a reference that names no animal before any label, and stops at an animal the caller may not use', async () => {
    const { s, record } = service();
    await expect(s.confirm(caller, 'q-1', 'not an animal')).rejects.toMatchObject({ status: 404 });
    expect(record).not.toHaveBeenCalled();
    const denied = service({
      individuals: strictMock<AnimalReviewDeps['individuals']>({
        owned: vi.fn(async () => {
          throw Object.assign(new Error('not found'), { status: 404 });
        }) as never,
      }),
    });
    await expect(denied.s.confirm(caller, 'q-1', MAN)).rejects.toMatchObject({ status: 404 });
    expect(denied.record).not.toHaveBeenCalled();
  });

  it('labels a query whose photos became a new animal: a stranger when nothing matched, else another animal', async () => {
    const { s, record } = service();
    await s.labelNew(caller, 'q-1', 'no_match', MAN);
    await s.labelNew(caller, 'q-2', 'uncertain', BONG);
    expect(record.mock.calls.map((c) => (c as unknown[])[1])).toEqual([
      { query_id: 'q-1', verdict: 'unknown_ok', correct_id: MAN, kind: 'animal' },
      { query_id: 'q-2', verdict: 'other', correct_id: BONG, kind: 'animal' },
    ]);
  });
});
