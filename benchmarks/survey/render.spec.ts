import { describe, expect, it } from 'vitest';
import { MIN_VISIBILITY, truth, visiblePart, type Scene } from './render.js';

const win = { x: 0, y: 0, w: 100, h: 100 };

describe('visible part of an animal', () => {
  it('is the whole box when nothing hides it', () => {
    expect(visiblePart({ x: 10, y: 10, w: 20, h: 10 }, win, [])).toEqual({ area: 200, box: { x: 10, y: 10, w: 20, h: 10 } });
  });

  it('is cut by the window and by what stands in front', () => {
    // 40 wide, half past the window's right edge, and a bush over its left 10 px.
    const p = visiblePart({ x: 80, y: 0, w: 40, h: 10 }, win, [{ x: 70, y: 0, w: 20, h: 50 }]);
    expect(p).toEqual({ area: 100, box: { x: 90, y: 0, w: 10, h: 10 } });
  });

  it('keeps the bounding box of both sides when an occluder hides the middle', () => {
    const p = visiblePart({ x: 0, y: 0, w: 30, h: 10 }, win, [{ x: 10, y: -5, w: 10, h: 20 }]);
    expect(p).toEqual({ area: 200, box: { x: 0, y: 0, w: 30, h: 10 } });
  });
});

describe('ground truth of a frame', () => {
  const scene = (bushW: number): Scene => ({
    world: { width: 200, height: 100, png: Buffer.alloc(0) },
    actors: [{ id: 'a', sprite: Buffer.alloc(0), w: 40, h: 20, at: () => ({ x: 10, y: 10 }), z: 0 }],
    occluders: [{ x: 0, y: 0, w: 10 + bushW, h: 100, png: Buffer.alloc(0) }],
    view: { width: 100, height: 100, at: () => ({ x: 0, y: 0 }) },
    frames: 1,
    fps: 10,
  });

  it('scores an animal at least half visible with its visible box', () => {
    const g = truth(scene(20), 0); // 20 of 40 px hidden: visibility ½
    expect(MIN_VISIBILITY).toBe(0.5);
    expect(g).toEqual({ ids: ['a'], boxes: [{ x: 30, y: 10, w: 20, h: 20 }], ignored: [] });
  });

  it('ignores an animal less than half visible instead of leaving it out', () => {
    const g = truth(scene(30), 0); // 10 of 40 px show
    expect(g).toEqual({ ids: [], boxes: [], ignored: [{ x: 40, y: 10, w: 10, h: 20 }] });
  });

  it('leaves out an animal wholly hidden', () => {
    expect(truth(scene(40), 0)).toEqual({ ids: [], boxes: [], ignored: [] });
  });
});
