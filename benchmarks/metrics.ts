/**
 * The accuracy metrics of `bench:accuracy`, shared with `npm run eval` so a candidate model
 * and the model in service are measured the same way (definitions in accuracy.ts's header).
 */
import { rocAuc, thresholdForFalseMatchRate } from '../workers/src/vision/calibrate.js';
import type { Candidate } from '../workers/src/vision/engine.js';

/** One identified query: the individual it shows (null: not enrolled), the ranking and the verdict. */
export interface Outcome {
  expect: string | null;
  ranked: Candidate[];
  verdict: string;
}

/** top-1/top-5, AUC, accept at FMR ≤ 1%, match and uncertain rates, and per-query scores for plots. */
export function summarise(outcomes: readonly Outcome[]) {
  const enrolled = outcomes.filter((o) => o.expect !== null);
  const isCorrect = (o: Outcome): boolean => o.expect !== null && o.ranked[0]?.individualId === o.expect;
  const scores = outcomes.map((o) => o.ranked[0]?.probability ?? 0);
  const labels = outcomes.map(isCorrect);
  const t1 = thresholdForFalseMatchRate(scores, labels, 0.01);
  const nE = Math.max(1, enrolled.length);
  const nQ = Math.max(1, outcomes.length);
  return {
    n_queries_enrolled: enrolled.length,
    n_queries_open_set: outcomes.length - enrolled.length,
    top1: enrolled.filter(isCorrect).length / nE,
    top5: enrolled.filter((o) => o.ranked.slice(0, 5).some((c) => c.individualId === o.expect)).length / nE,
    auc: rocAuc(scores, labels),
    accept_at_far1: outcomes.filter((_, i) => labels[i] && scores[i]! >= t1).length / nE,
    false_match_rate: outcomes.filter((o, i) => o.verdict === 'match' && !labels[i]).length / nQ,
    match_rate: outcomes.filter((o) => o.verdict === 'match').length / nQ,
    correct_match_rate: outcomes.filter((o, i) => o.verdict === 'match' && labels[i]).length / nE,
    uncertain_rate: outcomes.filter((o) => o.verdict === 'uncertain').length / nQ,
    no_match_rate: outcomes.filter((o) => o.verdict === 'no_match').length / nQ,
    shortlist_recall: enrolled.filter((o) => o.ranked.some((c) => c.individualId === o.expect)).length / nE,
    /** Per query: top-1 probability, whether it was right, verdict (for plots and re-analysis). */
    per_query: outcomes.map((o, i) => ({
      p: Math.round(scores[i]! * 1e4) / 1e4,
      correct: labels[i]!,
      open_set: o.expect === null,
      verdict: o.verdict,
    })),
  };
}
