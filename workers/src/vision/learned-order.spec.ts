import { describe, expect, it } from 'vitest';
import { orderByLearned } from './engine.js';

// Candidates as the engine ranks them: by calibrated probability, best first.
const ranked = [{ individualId: 'a' }, { individualId: 'b' }, { individualId: 'c' }, { individualId: 'd' }];
// The backbone prefers c, then d, then b, then a (best image per individual counts).
const perQuery = [
  [
    { individualId: 'a', learned: 0.1 },
    { individualId: 'b', learned: 0.3 },
    { individualId: 'c', learned: 0.9 },
  ],
  [
    { individualId: 'd', learned: 0.5 },
    { individualId: 'a', learned: 0.2 },
    { individualId: 'b', learned: 0.25 },
  ],
];
const ids = (l: readonly { individualId: string }[]) => l.map((c) => c.individualId);

describe('ordering verified candidates by an owner backbone', () => {
  it('keeps the probability order unless the kind asks otherwise', () => {
    expect(ids(orderByLearned([...ranked], perQuery, 'probability'))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('orders by the best backbone cosine of each individual over every query photo', () => {
    expect(ids(orderByLearned([...ranked], perQuery, 'learned'))).toEqual(['c', 'd', 'b', 'a']);
  });

  it('orders by the sum of both ranks, ties to the probability order', () => {
    // ranks (probability + backbone): a 0+3, b 1+2, c 2+0, d 3+1 → c 2, a 3, b 3, d 4
    expect(ids(orderByLearned([...ranked], perQuery, 'both'))).toEqual(['c', 'a', 'b', 'd']);
  });

  it('leaves the order alone when no backbone scored the hits', () => {
    expect(ids(orderByLearned([...ranked], [[{ individualId: 'a' }, { individualId: 'c' }]], 'learned'))).toEqual(['a', 'b', 'c', 'd']);
  });
});
