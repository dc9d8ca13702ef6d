import { describe, expect, it } from 'vitest';
import { HELD_OUT_PER_INDIVIDUAL, heldOut, type CropSample } from './backbone-train.js';

const sample = (label: string, enrolled = true): CropSample => ({ label, file: `${label}.jpg`, base: enrolled ? new Float32Array(1) : null });

describe('photos held out of a backbone\'s training', () => {
  it('takes the last third of each individual\'s enrolled photos, at least one and at most four, never a lone photo or a verdict photo', () => {
    const samples = [
      sample('lone'),
      ...Array.from({ length: 2 }, () => sample('pair')),
      ...Array.from({ length: 6 }, () => sample('six')),
      ...Array.from({ length: 30 }, () => sample('herd')),
      sample('six', false),
    ];
    const out = heldOut(samples);
    const count = (label: string) => [...out].filter((i) => samples[i]!.label === label).length;
    expect(count('lone')).toBe(0);
    expect(count('pair')).toBe(1);
    expect(count('six')).toBe(2);
    expect(count('herd')).toBe(HELD_OUT_PER_INDIVIDUAL);
    // Verdict photos (no base embedding) only ever train.
    expect(out.has(samples.length - 1)).toBe(false);
    // The held-out photos are each individual's last ones: a fixed choice, the same on every run.
    expect([...out].filter((i) => samples[i]!.label === 'herd')).toEqual([35, 36, 37, 38]);
  });
});
