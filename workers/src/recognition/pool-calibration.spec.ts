import { describe, expect, it } from 'vitest';
import { holdBack, outcomeOf } from './pool-calibration.js';
import type { PoolSample } from './pooled-fit.js';

const ev = { global: 0.5, local: 0, globalMargin: 0, localMargin: 0, spread: 0 };
const s = (owner: string, outcome: PoolSample['outcome'], order: number): PoolSample => ({ owner, outcome, order, views: 1, evidence: ev });

describe('the pooled job', () => {
  it("holds back each owner's newest answers of each outcome, so answers labelled in runs still leave some of each", () => {
    // Own animals labelled first (orders 0–9), strangers after (10–19).
    const samples = [
      ...Array.from({ length: 10 }, (_, i) => s('a', 'right', i)),
      ...Array.from({ length: 10 }, (_, i) => s('a', 'stranger', 10 + i)),
      ...Array.from({ length: 3 }, (_, i) => s('b', 'wrong', i)),
    ];
    const { fit, held } = holdBack(samples, 0.2);
    expect(held.map((x) => `${x.owner}:${x.outcome}:${x.order}`).sort()).toEqual([
      'a:right:8',
      'a:right:9',
      'a:stranger:18',
      'a:stranger:19',
    ]);
    // Fewer than five of a kind: all fitted.
    expect(fit.filter((x) => x.owner === 'b')).toHaveLength(3);
    expect(fit.length + held.length).toBe(samples.length);
    expect(holdBack(samples, 0).held).toEqual([]);
  });

  it('reads a label against the top answer it labels', () => {
    const evidence = [{ individual_id: 'x', evidence: {} }];
    expect(outcomeOf({ verdict: 'correct', correct_id: null, evidence })).toBe('right');
    expect(outcomeOf({ verdict: 'other', correct_id: 'x', evidence })).toBe('right');
    expect(outcomeOf({ verdict: 'wrong', correct_id: 'y', evidence })).toBe('wrong');
    expect(outcomeOf({ verdict: 'unknown_ok', correct_id: null, evidence })).toBe('stranger');
    expect(outcomeOf({ verdict: 'correct', correct_id: null, evidence: [] })).toBeNull();
  });
});
