import { mulberry32 } from '../../vision/testing/synthetic.js';
import type { PoolSample, SampleOutcome } from '../pooled-fit.js';

/**
 * Generated owners: each has its own camera (a shift of every score, so one owner's answers are
 * alike), and answers right, wrong and stranger queries with overlapping scores.
 */
export function generatedOwner(name: string, seed: number, n = 240, views = 1): PoolSample[] {
  const rnd = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const shift = gauss() * 0.03;
  const out: PoolSample[] = [];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    const outcome: SampleOutcome = r < 0.5 ? 'right' : r < 0.6 ? 'wrong' : 'stranger';
    const good = outcome === 'right';
    // Several photos fuse their best scores: a little higher for everyone.
    const lift = (views - 1) * 0.02;
    const global = (good ? 0.82 : 0.62) + shift + lift + gauss() * 0.06;
    const local = Math.max(0, (good ? 60 : 12) + gauss() * (good ? 25 : 10));
    out.push({
      owner: name,
      outcome,
      views,
      order: i,
      evidence: {
        global,
        local,
        globalMargin: (good ? 0.08 : 0.01) + gauss() * 0.03,
        localMargin: (good ? 1.2 : 0.1) + gauss() * 0.5,
        spread: Math.min(1, Math.max(0, (good ? 0.6 : 0.3) + gauss() * 0.15)),
      },
    });
  }
  return out;
}

/** `owners` generated owners named `owner-<i>`, one seed each. */
export const generatedFleet = (owners: number, from = 0) =>
  Array.from({ length: owners }, (_, i) => generatedOwner(`owner-${from + i}`, 100 + from + i)).flat();
