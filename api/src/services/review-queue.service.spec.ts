import { describe, expect, it } from 'vitest';
import { closestOf } from './review-queue.service.js';

const candidate = (id: string) => ({ individual_id: id, name: id, probability: 0.5, photos: [{ image_id: `i-${id}`, cid: `c-${id}` }] });

describe('what the review queue offers to choose among', () => {
  it("offers a photo query's closest individuals as they were stored", () => {
    const closest = [{ individual_id: 'a', rank: 1, photos: [], match_lines: null }];
    expect(closestOf({ verdict: 'uncertain', closest, candidates: [candidate('x')] })).toBe(closest);
  });

  it("offers a survey track's and a batch row's own candidates, ranked, with photo URLs, when they stored no closest", () => {
    for (const source of [{ survey_id: 's1' }, { batch_id: 'b1' }]) {
      expect(closestOf({ verdict: 'uncertain', ...source, candidates: [candidate('a'), candidate('b')] })).toEqual([
        { ...candidate('a'), rank: 1, photos: [{ image_id: 'i-a', cid: 'c-a', url: '/api/blobs/c-a' }], match_lines: null },
        { ...candidate('b'), rank: 2, photos: [{ image_id: 'i-b', cid: 'c-b', url: '/api/blobs/c-b' }], match_lines: null },
      ]);
    }
  });

  it('offers nothing for a plain query without closest individuals', () => {
    expect(closestOf({ verdict: 'no_match', candidates: [candidate('a')] })).toEqual([]);
  });
});
