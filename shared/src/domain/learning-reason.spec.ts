import { describe, expect, it } from 'vitest';
import { calibrationReason, learningMessage, renderLearning, runReason } from './learning-reason.js';

describe('learning reasons in both languages', () => {
  it('writes decimals with a comma in Vietnamese and a point in English', () => {
    const m = learningMessage('learn_top1_would_fall', { from: 94.3, to: 73.3, photos: 105, tolerance: 2 });
    expect(renderLearning(m, 'vi')).toContain('giảm từ 94,3% xuống 73,3% trên 105 ảnh giữ lại');
    expect(renderLearning(m, 'en')).toContain('from 94.3% to 73.3% on 105 held-out photos');
  });

  it("reads a run's message from the decision or its report; a failed run without one says it failed; an older run has none", () => {
    const m = learningMessage('learn_needs_two', { photos: 3 });
    expect(runReason('skipped', { reason: 'x', message: m })).toMatchObject({
      code: 'learn_needs_two',
      vi: 'Bỏ qua: cần ít nhất hai cá thể, trong đó một cá thể có hai ảnh (hiện có 3 ảnh).',
    });
    expect(runReason('refused', { reason: 'x', report: { message: m } })?.code).toBe('learn_needs_two');
    expect(runReason('failed', { reason: 'training failed: out of memory' })?.code).toBe('learn_failed');
    expect(runReason('refused', { reason: 'refused: an English sentence stored before codes' })).toBeNull();
    // Something else stored under `message` is not taken for a catalogue sentence.
    expect(runReason('adopted', { message: { code: 'internal', params: {} } })).toBeNull();
  });

  it('says why a calibration does not serve in the order the fit refuses, from its stored figures', () => {
    const base = { reason: 'English', n: 400, right: 200, individuals: 12, effective_n: 350, minimum_sample: 299 };
    expect(calibrationReason({ ...base, n: 120 }, false, false)).toMatchObject({
      code: 'cal_too_few_queries',
      params: { n: 120, needed: 299 },
    });
    expect(calibrationReason({ ...base, individuals: 3 }, false, false)?.code).toBe('cal_too_few_individuals');
    expect(calibrationReason({ ...base, right: 395 }, false, false)).toMatchObject({
      code: 'cal_too_few_answers',
      params: { right: 395, wrong: 5 },
    });
    expect(calibrationReason({ ...base, effective_n: 96 }, false, false)).toMatchObject({
      code: 'cal_too_few_effective',
      en: expect.stringContaining('about 96 independent ones; 299 are needed'),
    });
    expect(calibrationReason(base, false, true)?.code).toBe('cal_stale');
    expect(calibrationReason(base, true, false)).toBeNull();
    // Figures that explain nothing: the stored English is shown instead.
    expect(calibrationReason(base, false, false)).toBeNull();
  });
});
