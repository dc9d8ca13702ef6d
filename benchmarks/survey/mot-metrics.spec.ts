import { describe, expect, it } from 'vitest';
import { motScores, type FrameBoxes } from './mot-metrics.js';

const b = (x: number) => ({ x, y: 0, w: 10, h: 10 });
const frames = (rows: [number | string, number][][]): FrameBoxes[] => rows.map((r) => ({ ids: r.map((x) => x[0]), boxes: r.map((x) => b(x[1])) }));

describe('CLEAR-MOT and IDF1', () => {
  it('scores a perfect tracker 1 / 1 with no switches', () => {
    const gt = frames([[['a', 0], ['b', 50]], [['a', 2], ['b', 48]]]);
    const pr = frames([[[1, 0], [2, 50]], [[1, 2], [2, 48]]]);
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
    const pr = frames([[[1, 0], [9, 80]], []]);
    expect(motScores(gt, pr)).toMatchObject({ fn: 1, fp: 1, mota: 0 });
  });
});
