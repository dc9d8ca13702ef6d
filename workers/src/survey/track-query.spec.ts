import { describe, expect, it } from 'vitest';
import { bestSeenFirst } from './track-query.js';

describe("a survey track's crops as one query", () => {
  it('are asked best seen first, so the pair that decides is the two best views, not the first two in time', () => {
    const crops = [
      { at: 0.1, quality: 3 }, // entering the picture, cut by the edge
      { at: 0.6, quality: 40 },
      { at: 1.1, quality: 12 },
      { at: 1.6, quality: 55 },
    ];
    expect(bestSeenFirst(crops)).toEqual([3, 1, 2, 0]);
  });

  it('keep time order between crops seen equally well, and answer nothing for no crop', () => {
    expect(
      bestSeenFirst([
        { at: 2, quality: 5 },
        { at: 1, quality: 5 },
      ]),
    ).toEqual([1, 0]);
    expect(bestSeenFirst([])).toEqual([]);
  });
});
