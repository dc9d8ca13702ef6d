import { describe, expect, it } from 'vitest';
import type { Evidence } from '../vision/calibrate.js';
import type { QuerySample } from '../vision/fused-fit.js';
import { mulberry32 } from '../vision/testing/synthetic.js';
import { judgeServed, servedFigures, spaceGallery } from './served-gate.js';
import { renderLearning } from '../../../shared/src/domain/learning-reason.js';

/**
 * Paired held-out outcomes of one pipeline: `photos` photos of `individuals` individuals asked
 * with their individual enrolled (right with probability `top1`) and hidden (always wrong).
 * `sep` is how far right answers' learned cosine stands above wrong ones'.
 */
function outcomes(photos: number, individuals: number, top1: number, sep: number, seed: number): QuerySample[] {
  const rnd = mulberry32(seed);
  const right = mulberry32(seed * 7 + 1); // the same photo draws its luck from the same stream
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const ev = (same: boolean): Evidence => ({
    global: 0.7 + 0.05 * gauss(),
    local: 5 * rnd(),
    globalMargin: 0.02 * gauss(),
    localMargin: 0.3 * gauss(),
    spread: 0.2,
    learned: 0.5 + (same ? sep : 0) + 0.05 * gauss(),
    learnedMargin: (same ? sep / 2 : 0) + 0.03 * gauss(),
  });
  const out: QuerySample[] = [];
  for (let i = 0; i < photos; i++) {
    const same = right() < top1;
    out.push({ evidence: ev(same), same, group: `ind-${i % individuals}` });
  }
  for (let i = 0; i < photos; i++) out.push({ evidence: ev(false), same: false, group: `ind-${i % individuals}`, openSet: true });
  return out;
}

describe('adoption judged on the pipeline as served', () => {
  it('refuses a candidate that lowers served top-1, and says so', () => {
    const served = outcomes(80, 20, 0.93, 0.25, 1);
    const candidate = outcomes(80, 20, 0.6, 0.4, 1);
    const d = judgeServed(served, candidate);
    expect(d.served.top1).toBeGreaterThan(d.candidate.top1 + 0.1);
    expect(d.adopt).toBe(false);
    expect(d.reason).toMatch(/^Refused: served top-1 would fall from \d+\.\d% to \d+\.\d% on 80 held-out photos/);
    // The same sentence as a catalogue code and figures, for the owner's language.
    expect(d.message).toMatchObject({ code: 'learn_top1_would_fall', params: { photos: 80, from: Math.round(d.served.top1 * 1000) / 10 } });
    expect(renderLearning(d.message, 'en')).toBe(d.reason);
    expect(renderLearning(d.message, 'vi')).toMatch(
      /^Không dùng mô hình mới: tỉ lệ ảnh có đúng cá thể đứng đầu sẽ giảm từ \d+(,\d)?% xuống \d+(,\d)?% trên 80 ảnh giữ lại/,
    );
  });

  it('refuses on a small herd whatever the figures: seven held-out photos cannot show a gain', () => {
    const d = judgeServed(outcomes(7, 7, 0.5, 0.1, 3), outcomes(7, 7, 1, 0.5, 3));
    expect(d.adopt).toBe(false);
    expect(d.reason).toContain('7 held-out photos of 7 individuals are too few');
  });

  it('adopts a candidate that keeps top-1 and matches more at ≤ 1% false matches', () => {
    const served = outcomes(150, 30, 0.85, 0.05, 5);
    const candidate = outcomes(150, 30, 0.9, 0.35, 5);
    const d = judgeServed(served, candidate);
    expect(d.candidate.correct_match).toBeGreaterThan(d.served.correct_match);
    expect(d.adopt).toBe(true);
    expect(d.reason).toMatch(/^Adopted: correct matches/);
    expect(d.message.code).toBe('learn_adopted_more_matches');
  });

  it('refuses a better-matching candidate when too few photos it never trained on are left to calibrate it', () => {
    // 100 held-out photos asked twice: 200 queries, fewer than the 299 the 1% bound needs.
    const served = outcomes(100, 20, 0.85, 0.05, 5);
    const candidate = outcomes(100, 20, 0.9, 0.35, 5);
    const d = judgeServed(served, candidate);
    // Neither 200-query sample can vouch for 1%: as served, both would withhold every match.
    expect([d.served.correct_match, d.candidate.correct_match]).toEqual([0, 0]);
    expect(d.adopt).toBe(false);
    expect(d.reason).toMatch(
      /^Refused: the new model would match more, but only 200 queries of photos it never trained on .* \(299 are needed/,
    );
    expect(renderLearning(d.message, 'vi')).toContain('chỉ còn 200 lượt thử trên ảnh nó chưa từng học để hiệu chỉnh (cần 299 lượt');
    expect(d.candidate.allowed_false_matches).toBe(-1);
    // The same figures, when the refit will rest on 400 such queries, are adopted: the count alone refused it.
    const later = judgeServed(served, candidate, { servedCalibration: 400, candidateCalibration: 400 });
    expect(later.adopt).toBe(true);
    expect(later.candidate.allowed_false_matches).toBe(0);
  });

  it('tolerates no more than the sample noise, and never more than 2 points', () => {
    const served = outcomes(400, 40, 0.9, 0.3, 9);
    const d = judgeServed(served, served);
    // Identical outcomes: no discordant pairs, no noise band at all.
    expect(d.tolerance).toBe(0);
    const lower = judgeServed(outcomes(400, 40, 0.95, 0.3, 9), outcomes(400, 40, 0.9, 0.6, 9));
    expect(lower.tolerance).toBeLessThanOrEqual(0.02);
    expect(lower.adopt).toBe(false);
  });

  it('counts correct matches at the threshold keeping false matches within 1% of all queries', () => {
    const f = servedFigures(outcomes(200, 20, 0.8, 0.5, 11));
    expect(f.closed).toBe(200);
    expect(f.open).toBe(200);
    expect(f.correct_match).toBeGreaterThan(0.5);
    expect(f.correct_match).toBeLessThanOrEqual(f.top1);
  });

  it('judges each side at the false matches its own calibration can vouch for, not at an oracle 1% of the sample', () => {
    const sample = outcomes(300, 30, 0.85, 0.2, 13);
    // The gate's own 600 queries would allow 6 false matches at 1%; a refit on 360 allows none,
    // on 480 one (threshold.ts vouchedFalses), scaled to this sample.
    const oracle = servedFigures(sample, 0.01, 600);
    const strict = servedFigures(sample, 0.01, 360);
    expect(oracle.allowed_false_matches).toBe(1);
    expect(strict.allowed_false_matches).toBe(0);
    expect(servedFigures(sample, 0.01, 480).allowed_false_matches).toBe(1);
    expect(strict.correct_match).toBeLessThanOrEqual(oracle.correct_match);
    // A calibration that cannot vouch for 1% withholds every match.
    expect(servedFigures(sample, 0.01, 250)).toMatchObject({ allowed_false_matches: -1, correct_match: 0 });
    // The candidate is judged with the refit it will get: too few never-trained photos refuse it even when it ranks better.
    const better = outcomes(300, 30, 0.9, 0.5, 13);
    expect(judgeServed(sample, better, { servedCalibration: 480, candidateCalibration: 600 }).adopt).toBe(true);
    const d = judgeServed(sample, better, { servedCalibration: 480, candidateCalibration: 250 });
    expect(d.adopt).toBe(false);
    expect(d.reason).toContain('only 250 queries of photos it never trained on');
  });

  it('orders a space gallery by the compared space and reports the base cosine as the similarity', () => {
    const v = (...x: number[]) => Float32Array.from(x);
    const rows = [
      { id: 'a1', individualId: 'a', base: v(1, 0), vector: v(0, 1) },
      { id: 'b1', individualId: 'b', base: v(0, 1), vector: v(1, 0) },
    ];
    const g = spaceGallery(rows, v(1, 0), () => new Map(), { name: 'owner-metric', version: '2' });
    const hits = g.search(v(1, 0), 2) as { id: string; similarity: number; learned?: number }[];
    expect(hits.map((h) => h.id)).toEqual(['b1', 'a1']);
    expect(hits[0]).toMatchObject({ similarity: 0, learned: 1 });
    // A linear metric's space orders the hits but is not reported as a backbone's cosine.
    expect(
      (spaceGallery(rows, v(1, 0), () => new Map()).search(v(1, 0), 2) as { id: string; learned?: number }[]).map((h) => [h.id, h.learned]),
    ).toEqual([
      ['b1', undefined],
      ['a1', undefined],
    ]);
    // Without a compared space, the base cosine orders.
    expect(
      (
        spaceGallery(
          rows.map(({ vector: _v, ...r }) => r),
          null,
          () => new Map(),
        ).search(v(1, 0), 2) as { id: string }[]
      ).map((h) => h.id),
    ).toEqual(['a1', 'b1']);
  });
});
