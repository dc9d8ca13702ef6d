import { describe, expect, it } from 'vitest';
import { motScores, type FrameBoxes } from './mot-metrics.js';

const b = (x: number) => ({ x, y: 0, w: 10, h: 10 });
const frames = (rows: [number | string, number][][]): FrameBoxes[] =>
  rows.map((r) => ({ ids: r.map((x) => x[0]), boxes: r.map((x) => b(x[1])) }));

describe('CLEAR-MOT and IDF1', () => {
  it('scores a perfect tracker 1 / 1 with no switches', () => {
    const gt = frames([
      [
        ['a', 0],
        ['b', 50],
      ],
      [
        ['a', 2],
        ['b', 48],
      ],
    ]);
    const pr = frames([
      [
        [1, 0],
        [2, 50],
      ],
      [
        [1, 2],
        [2, 48],
      ],
    ]);
    expect(motScores(gt, pr)).toMatchObject({ mota: 1, idf1: 1, id_switches: 0, fp: 0, fn: 0 });
  });

  it('counts one ID switch when a track takes over another object, and IDF1 falls with it', () => {
    // Four frames of one object; the tracker changes its id half way.
    const gt = frames([[['a', 0]], [['a', 1]], [['a', 2]], [['a', 3]]]);
    const pr = frames([[[1, 0]], [[1, 1]], [[2, 2]], [[2, 3]]]);
    const s = motScores(gt, pr);
    expect(s.id_switches).toBe(1);
    expect(s.mota).toBeCloseTo(1 - 1 / 4);
    expect(s.idf1).toBeCloseTo((2 * 2) / (4 + 4));
  });

  it('counts misses and false positives', () => {
    const gt = frames([[['a', 0]], [['a', 1]]]);
    const pr = frames([
      [
        [1, 0],
        [9, 80],
      ],
      [],
    ]);
    expect(motScores(gt, pr)).toMatchObject({ fn: 1, fp: 1, mota: 0 });
  });
});

describe('ignored animals (less than half visible)', () => {
  it('drops a prediction on an ignored animal: no false positive, not among IDF1 predictions', () => {
    // 'a' scored in both frames; a second animal half hidden at x 80 is ignored in both, and tracked.
    const gt = frames([[['a', 0]], [['a', 1]]]).map((g) => ({ ...g, ignored: [b(80)] }));
    const pr = frames([
      [
        [1, 0],
        [2, 80],
      ],
      [
        [1, 1],
        [2, 81],
      ],
    ]);
    const s = motScores(gt, pr);
    expect(s).toMatchObject({ fp: 0, fn: 0, mota: 1, idf1: 1, ignored: 2 });
    expect(s.frames).toEqual([
      { fp: 0, fn: 0, idsw: 0, ignored: 1 },
      { fp: 0, fn: 0, idsw: 0, ignored: 1 },
    ]);
    // Without the ignore entry the same track is two false positives.
    expect(motScores(frames([[['a', 0]], [['a', 1]]]), pr)).toMatchObject({ fp: 2, mota: 0, ignored: 0 });
  });

  it('does not count a missed ignored animal, and a prediction elsewhere is still a false positive', () => {
    const gt: FrameBoxes[] = [{ ids: ['a'], boxes: [b(0)], ignored: [b(80)] }];
    expect(motScores(gt, frames([[[1, 0]]]))).toMatchObject({ fn: 0, fp: 0, ignored: 0 });
    expect(
      motScores(
        gt,
        frames([
          [
            [1, 0],
            [2, 40],
          ],
        ]),
      ),
    ).toMatchObject({ fp: 1, ignored: 0 });
  });

  it('lets a scored animal keep the prediction that overlaps it when an ignored one overlaps too', () => {
    // The prediction at x 1 overlaps both 'a' (x 0) and the ignored box (x 4); Hungarian over all
    // boxes gives it to 'a', and the second prediction at x 5 to the ignored animal.
    const gt: FrameBoxes[] = [{ ids: ['a'], boxes: [b(0)], ignored: [b(4)] }];
    expect(
      motScores(
        gt,
        frames([
          [
            [1, 1],
            [2, 5],
          ],
        ]),
      ),
    ).toMatchObject({ fp: 0, fn: 0, ignored: 1, mota: 1 });
  });
});
