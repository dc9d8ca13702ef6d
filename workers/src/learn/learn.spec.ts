import { describe, expect, it } from 'vitest';
import { generatedGallery } from './generated.js';
import { crossValidate, leaveOneOutTop1, scoreMetric } from './holdout.js';
import { metricFromBytes, metricToBytes, project, trainMetric } from './metric.js';
import { judge, trainable } from './train.js';

// Identity lives in 8 of 48 dimensions; scene-like nuisance 1.5× as strong fills the other 40.
const hidden = () => generatedGallery({ individuals: 24, photosEach: 6, dim: 48, signalDims: 8, nuisance: 1.5, seed: 11 });
// Identity is all there is: the raw embedding already separates every individual.
const clean = () => generatedGallery({ individuals: 24, photosEach: 4, dim: 48, signalDims: 48, nuisance: 0, seed: 12 });
const fast = { dimOut: 24, epochs: 30, learningRate: 0.03, folds: 4 };

describe('learned metric on generated labelled embeddings', () => {
  it('learns a metric that identifies held-out photos far better than the raw embedding', async () => {
    const s = hidden();
    const raw = scoreMetric(s, null);
    const cv = await crossValidate(s, fast);
    expect(cv.evaluated).toBe(s.length);
    expect(raw.top1).toBeLessThan(0.5);
    expect(cv.top1).toBeGreaterThan(raw.top1 + 0.2);
  });

  it('adopts a candidate that beats the base embedding, and trains the final metric on every photo', async () => {
    const s = hidden();
    const j = await judge(s, null, fast);
    expect(j.adopt).toBe(true);
    expect(j.candidate.top1).toBeGreaterThanOrEqual(j.current.top1 + j.minGain);
    expect(j.metric.dimIn).toBe(48);
    expect(j.metric.dimOut).toBe(24);
    // The metric trained on everything fits the gallery at least as well as its held-out estimate.
    expect(scoreMetric(s, j.metric).top1).toBeGreaterThanOrEqual(j.candidate.top1);
  });

  it('rejects a candidate that does not beat the current one', async () => {
    const base = await judge(clean(), null, fast);
    expect(base.current.top1).toBe(1);
    expect(base.adopt).toBe(false);
    // Against an adopted metric that already fits the gallery, a retrain cannot show a gain either.
    const s = hidden();
    const first = await judge(s, null, fast);
    const again = await judge(s, first.metric, fast);
    expect(again.current.top1).toBeGreaterThan(again.candidate.top1 - again.minGain);
    expect(again.adopt).toBe(false);
  });

  it('is reproducible and survives storage byte for byte', async () => {
    const s = hidden();
    const a = await trainMetric(s, { dimOut: 16, epochs: 5, seed: 3 });
    const b = await trainMetric(s, { dimOut: 16, epochs: 5, seed: 3 });
    expect(Buffer.from(metricToBytes(a)).equals(Buffer.from(metricToBytes(b)))).toBe(true);
    const back = metricFromBytes(metricToBytes(a));
    expect(Array.from(project(back, s[0]!.vector))).toEqual(Array.from(project(a, s[0]!.vector)));
    expect(() => metricFromBytes(metricToBytes(a).subarray(0, 40))).toThrow(/wrong size/);
  });

  it('needs two individuals and a second photo of one of them', async () => {
    const v = new Float32Array([1, 0]);
    expect(
      trainable([
        { label: 'a', vector: v },
        { label: 'b', vector: v },
      ]),
    ).toBe(false);
    expect(
      trainable([
        { label: 'a', vector: v },
        { label: 'a', vector: v },
      ]),
    ).toBe(false);
    expect(
      trainable([
        { label: 'a', vector: v },
        { label: 'a', vector: v },
        { label: 'b', vector: v },
      ]),
    ).toBe(true);
    await expect(trainMetric([{ label: 'a', vector: v }])).rejects.toThrow(/two individuals/);
  });

  it('scores leave-one-out only on photos whose individual has another photo', async () => {
    const e = (x: number, y: number) => new Float32Array([x, y]);
    const r = leaveOneOutTop1([e(1, 0), e(0.9, 0.1), e(0, 1), e(0.2, 0.8)], ['a', 'a', 'b', 'c']);
    expect(r).toEqual({ evaluated: 2, top1: 1 });
  });
});
