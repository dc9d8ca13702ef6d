/**
 * The verdict: `match` (the top candidate), `uncertain` (a short candidate
 * list, returned instead of a guess), or `no_match`.
 */
import type { CalibrationParams } from './calibrate.js';

export type Verdict = 'match' | 'uncertain' | 'no_match';

export interface Scored {
  probability: number;
}

/**
 * Decides from candidates ranked best first. Returns the verdict and the
 * candidates worth showing: the top one for `match`, up to `maxShown` above
 * the uncertain threshold for `uncertain`, none for `no_match`.
 */
export function decide<T extends Scored>(ranked: readonly T[], cal: CalibrationParams, maxShown = 5): { verdict: Verdict; shown: T[] } {
  const top = ranked[0];
  if (!top) return { verdict: 'no_match', shown: [] };
  if (top.probability >= cal.matchThreshold) return { verdict: 'match', shown: [top] };
  if (top.probability >= cal.uncertainThreshold) {
    return { verdict: 'uncertain', shown: ranked.filter((c) => c.probability >= cal.uncertainThreshold).slice(0, maxShown) };
  }
  return { verdict: 'no_match', shown: [] };
}
