import { describe, expect, it } from 'vitest';
import { HELD_OUT_PER_INDIVIDUAL, heldOut, STRANGERS, strangers, type CropSample } from './backbone-train.js';

const sample = (label: string, enrolled = true): CropSample => ({
  label,
  file: `${label}.jpg`,
  base: enrolled ? new Float32Array(1) : null,
});

describe("photos held out of a backbone's training", () => {
  it("takes the last third of each individual's enrolled photos, at least one and at most four, never a lone photo or a verdict photo", () => {
    const samples = [
      sample('lone'),
      ...Array.from({ length: 2 }, () => sample('pair')),
      ...Array.from({ length: 6 }, () => sample('six')),
      ...Array.from({ length: 30 }, () => sample('herd')),
      sample('six', false),
    ];
    // Four individuals: too few to keep one out whole.
    expect(strangers(samples).size).toBe(0);
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

  it('keeps whole individuals out once the herd has five: every photo of a stranger is held out, the same ones on every run', () => {
    const herd = (n: number) => Array.from({ length: n }, (_, k) => Array.from({ length: 9 }, () => sample(`cow-${k}`))).flat();
    const seven = herd(7);
    const away = strangers(seven);
    expect(away.size).toBe(STRANGERS.min);
    expect(strangers(herd(7))).toEqual(away);
    const out = heldOut(seven, away);
    for (const [i, s] of seven.entries()) {
      if (away.has(s.label)) expect(out.has(i)).toBe(true);
    }
    // The others keep their last third in training's stead.
    const kept = [...out].filter((i) => !away.has(seven[i]!.label)).length;
    expect(kept).toBe((7 - away.size) * 3);
    // A fifth of a large herd, at most eight.
    expect(strangers(herd(20)).size).toBe(4);
    expect(strangers(herd(68)).size).toBe(STRANGERS.max);
    // Verdict photos never make a stranger (they only train).
    expect(strangers([...herd(4), sample('ghost', false)]).size).toBe(0);
  });
});
