import { describe, expect, it } from 'vitest';
import type { Descriptor } from './engine.js';
import { selectFrames } from './frames.js';

function frame(sharpness: number, dir: number[], reasons: ('too_blurred' | 'too_dark')[] = []): Descriptor {
  const n = Math.hypot(...dir);
  return {
    model: { name: 'm', version: '1' },
    models: [{ name: 'm', version: '1' }],
    subject: null,
    global: Float32Array.from(dir, (x) => x / n),
    local: new Uint8Array(0),
    quality: { width: 100, height: 100, sharpness, brightness: 100, reasons },
    width: 100,
    height: 100,
  };
}

describe('selectFrames', () => {
  it('keeps the sharpest distinct usable frames, capped, in video order', () => {
    const frames = [
      frame(50, [1, 0, 0]),
      frame(90, [1, 0.01, 0]), // near-duplicate of frame 0, sharper
      frame(80, [0, 1, 0]),
      frame(200, [0, 0, 1], ['too_dark']),
      frame(10, [1, 1, 1]),
    ];
    expect(selectFrames(frames, { max: 2 })).toEqual([1, 2]);
    expect(selectFrames(frames, { max: 5 })).toEqual([1, 2, 4]);
  });
});
