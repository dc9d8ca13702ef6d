import { describe, expect, it, vi } from 'vitest';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { PendingAnswer } from '../../../shared/src/repos/identify-queries.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { closestOf, createReviewQueueService } from './review-queue.service.js';

const db = strictMock<Queryable>({}, 'db');
/** The asker's own answers, as the route scopes them from its caller. */
const SCOPE = scopeOfJob({ owner_id: 'owner-1' });
const at = new Date('2026-11-28T10:00:00Z');
const row = (id: string, result: Record<string, unknown>, cids = ['cid-1']): PendingAnswer => ({
  id,
  kind: 'animal',
  image_cids: cids,
  result,
  created_at: at,
});

describe('review queue service', () => {
  it('lists a page with the total, names where each answer came from, and links its photos', async () => {
    const pendingCount = vi.fn(async () => 7);
    const pendingPage = vi.fn(async () => [
      row('q-photo', { verdict: 'uncertain', closest: [{ individual_id: 'a' }] }),
      row('q-video', { verdict: 'uncertain', frames_used: 4 }, ['video-cid']),
      row('q-batch', { verdict: 'uncertain', batch_id: 'b-1', candidates: [] }),
      row('q-track', { verdict: 'no_match', survey_id: 's-1', candidates: [] }),
    ]);
    const s = createReviewQueueService({ db, answers: strictMock({ pendingCount, pendingPage }) });
    const page = await s.list(SCOPE, { kind: 'animal', limit: 4, offset: 0 });
    expect(pendingCount).toHaveBeenCalledWith(db, SCOPE, 'animal');
    expect(pendingPage).toHaveBeenCalledWith(db, SCOPE, 'animal', 4, 0);
    expect(page).toMatchObject({ total: 7, limit: 4, offset: 0 });
    expect(page.items.map((i) => [i.query_id, i.source, i.verdict])).toEqual([
      ['q-photo', 'photos', 'uncertain'],
      ['q-video', 'video', 'uncertain'],
      ['q-batch', 'batch', 'uncertain'],
      ['q-track', 'survey', 'no_match'],
    ]);
    expect(page.items[1]!.photos).toEqual([{ cid: 'video-cid', url: '/api/blobs/video-cid' }]);
    expect(page.items[0]!.created_at).toBe('2026-11-28T10:00:00.000Z');
  });

  it('asks every kind when the caller names none', async () => {
    const pendingCount = vi.fn(async () => 0);
    const pendingPage = vi.fn(async () => []);
    const s = createReviewQueueService({ db, answers: strictMock({ pendingCount, pendingPage }) });
    expect(await s.list(SCOPE, { limit: 20, offset: 40 })).toEqual({ items: [], total: 0, limit: 20, offset: 40 });
    expect(pendingPage).toHaveBeenCalledWith(db, SCOPE, null, 20, 40);
  });

  it('offers a batch row’s or a survey track’s own candidates when the answer stored no closest individuals', () => {
    const candidates = [{ individual_id: 'a', photos: [{ image_id: 'i', cid: 'c' }] }, { individual_id: 'b' }];
    expect(closestOf({ batch_id: 'b', candidates })).toEqual([
      { individual_id: 'a', rank: 1, photos: [{ image_id: 'i', cid: 'c', url: '/api/blobs/c' }], match_lines: null },
      { individual_id: 'b', rank: 2, photos: [], match_lines: null },
    ]);
    expect(closestOf({ closest: [{ individual_id: 'z' }], batch_id: 'b', candidates })).toEqual([{ individual_id: 'z' }]);
    // An ordinary answer without closest individuals offers none.
    expect(closestOf({ candidates })).toEqual([]);
  });
});
