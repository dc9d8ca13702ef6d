import { describe, expect, it } from 'vitest';
import { renderLearning } from '../../../shared/src/domain/learning-reason.js';
import { retrainOf } from '../../../shared/src/domain/learning-retrain.js';
import { chooseServed } from './keep-learned.js';
import type { ServedFigures } from './served-gate.js';

/** Figures as servedFigures gives them; only top-1 and correct `match` decide. */
const figures = (top1: number, correct_match: number, calibration_queries: number): ServedFigures => ({
  closed: 40,
  open: 12,
  top1,
  correct_match,
  calibration_queries,
  allowed_false_matches: calibration_queries ? 1 : -1,
});

describe('after adoption, the model trained on every photo serves only if it serves no worse', () => {
  const photos = { all: 120, judged: 80 };

  it('serves the retrained model when neither figure falls, and says it waits for photos it never saw to match', () => {
    const c = chooseServed(figures(0.4, 0, 0), figures(0.55, 0, 0), photos);
    expect(c.served).toBe('retrained');
    expect(c.message).toEqual({
      code: 'learn_retrain_served',
      params: { photos: 120, judged_photos: 80, queries: 40, top1_judged: 40, top1_retrained: 55, match_judged: 0, match_retrained: 0 },
    });
    expect(renderLearning(c.message, 'en')).toMatch(/^Kept what it learned: .* all 120 photos \(the judged one on 80\)/);
    // A tie is no fall.
    expect(chooseServed(figures(0.4, 0, 0), figures(0.4, 0, 0), photos).served).toBe('retrained');
  });

  it('keeps the judged model, with the reason, when top-1 falls', () => {
    const c = chooseServed(figures(0.5, 0, 0), figures(0.475, 0, 0), photos);
    expect(c).toEqual({
      served: 'judged',
      message: { code: 'learn_retrain_top1_fell', params: { photos: 120, queries: 40, top1_judged: 50, top1_retrained: 47.5 } },
    });
    expect(renderLearning(c.message, 'vi')).toContain('giảm từ 50% xuống 47,5%');
  });

  it('keeps the judged model where it answers match and the retrained one, with nothing left to calibrate it, could not', () => {
    const c = chooseServed(figures(0.6, 0.3, 400), figures(0.9, 0, 0), photos);
    expect(c.served).toBe('judged');
    expect(c.message).toMatchObject({ code: 'learn_retrain_fewer_matches', params: { match_judged: 30, match_retrained: 0, target: 1 } });
  });

  it('reads the record back from a run only when it is whole', () => {
    const record = {
      served: 'judged',
      reason: 'x',
      message: { code: 'learn_retrain_top1_fell', params: {} },
      recipe: { epochs: 2 },
      judged: { trained_on: 6, ...figures(1, 0, 3) },
      retrained: null,
      error: 'exit 1',
    };
    expect(retrainOf({ report: { retrain: record } })).toEqual(record);
    expect(retrainOf({ report: { retrain: { ...record, served: 'both' } } })).toBeNull();
    expect(retrainOf({ report: {} })).toBeNull();
    expect(retrainOf(null)).toBeNull();
  });
});
