import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION, severalScopeFor, type CalibrationParams } from './calibrate.js';
import { SMALL_HERD_BELOW, isAnySpecies, saveKindCalibration, shippedCalibration, type KindCalibrationFile } from './kind-calibration.js';
import { BUNDLED_MODELS_DIR } from './registry.js';
import { RecognitionEngine } from './engine.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kind-cal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const params: CalibrationParams = {
  ...DEFAULT_CALIBRATION,
  source: 'kind:shipped',
  matchThreshold: 0.97,
  fusion: { prior: 0.3, calibrators: { global: { method: 'platt', a: 4, b: -2 } }, weights: { global: 1 }, intercept: -1 },
};
const band = (t: number) => ({ matchThreshold: t, uncertainThreshold: 0.1, vouched: { fmrUpper: 0.008, individuals: 68, queries: 2000 } });
const file = (over: Partial<KindCalibrationFile> = {}): KindCalibrationFile => ({
  kind: 'animal',
  engine_version: 'v1+p4',
  fitted_at: '2026-11-27T00:00:00Z',
  params,
  thresholds: { '*': { small: band(0.97), large: band(0.96) }, cattle: { small: band(0.88), large: band(0.62) } },
  fit: {},
  evaluation: {},
  ...over,
});

describe("the kind's shipped calibration", () => {
  it('serves only the engine version and kind it was fitted on', () => {
    saveKindCalibration(file(), dir);
    expect(shippedCalibration('animal', 'v1+p4', { species: 'cattle' }, dir)?.fusion).toEqual(params.fusion);
    // Another engine version's scores mean something else: nothing is served for it.
    expect(shippedCalibration('animal', 'v1+p5', { species: 'cattle' }, dir)).toBeNull();
    expect(shippedCalibration('fruit', 'v1+p4', { species: 'cattle' }, dir)).toBeNull();
  });

  it("picks the threshold of the pool's species and herd size; an unknown size counts as a small herd", () => {
    saveKindCalibration(file(), dir);
    const at = (species: string | null, individuals?: number) =>
      shippedCalibration('animal', 'v1+p4', { species, ...(individuals === undefined ? {} : { individuals }) }, dir)!;
    expect(at('cattle', SMALL_HERD_BELOW)).toMatchObject({
      matchThreshold: 0.62,
      source: 'kind:shipped:cattle:large',
      fusion: params.fusion,
    });
    expect(at('cattle', SMALL_HERD_BELOW - 1)).toMatchObject({ matchThreshold: 0.88, source: 'kind:shipped:cattle:small' });
    expect(at('cattle')).toMatchObject({ matchThreshold: 0.88 });
    // A species the fit never saw, or a mixed pool: the threshold that held on every species (`*`).
    expect(at('goat', 40)).toMatchObject({ matchThreshold: 0.96, source: 'kind:shipped:*:large', fusion: params.fusion });
    expect(at(null, 3)).toMatchObject({ matchThreshold: 0.97, source: 'kind:shipped:*:small' });
    expect(at('*', 3)).toMatchObject({ matchThreshold: 0.97, source: 'kind:shipped:*:small' });
    expect(isAnySpecies(at('goat', 40))).toBe(true);
    expect(isAnySpecies(at('cattle', 40))).toBe(false);
    // Nothing known of the pool: none (the hand-set defaults serve).
    expect(shippedCalibration('animal', 'v1+p4', {}, dir)).toBeNull();
    expect(shippedCalibration('animal', 'v1+p4', { individuals: 40 }, dir)).toBeNull();
  });

  it('a file without `*` leaves a species it never saw to the hand-set defaults', () => {
    saveKindCalibration(file({ thresholds: { cattle: { small: band(0.88), large: band(0.62) } } }), dir);
    expect(shippedCalibration('animal', 'v1+p4', { species: 'goat', individuals: 40 }, dir)).toBeNull();
    expect(shippedCalibration('animal', 'v1+p4', { species: null, individuals: 3 }, dir)).toBeNull();
  });

  it("serves a band's pairs' threshold with its one-photo threshold", () => {
    const pairs = { matchThreshold: 0.7, groupSize: 2, queries: 900, falseMatches: 0, fmrUpper: 0.009 };
    saveKindCalibration(file({ thresholds: { cattle: { small: band(0.88), large: { ...band(0.62), several: [pairs] } } } }), dir);
    const large = shippedCalibration('animal', 'v1+p4', { species: 'cattle', individuals: 30 }, dir)!;
    expect(severalScopeFor(large, 2)).toEqual(pairs);
    // The small band has none: a pair there is held to the every-photo rule (decide.ts).
    expect(shippedCalibration('animal', 'v1+p4', { species: 'cattle', individuals: 3 }, dir)!.several).toBeUndefined();
  });

  it('a new file replaces what was read before', () => {
    saveKindCalibration(file({ thresholds: { cattle: { small: band(0.99) } } }), dir);
    expect(shippedCalibration('animal', 'v1+p4', { species: 'cattle', individuals: 3 }, dir)?.matchThreshold).toBe(0.99);
    // A band the file has no threshold for: none.
    expect(shippedCalibration('animal', 'v1+p4', { species: 'cattle', individuals: 50 }, dir)).toBeNull();
  });

  it('what ships fits the engine that serves: cattle and nyala with thresholds of their own, every other species `*`; trees none', async () => {
    // A new model or PIPELINE_REVISION changes the engine version and the shipped file stops
    // serving silently: refit it (npm run bench:kind-calibration -- --split none --write, then
    // npm run bench:kind-pairs -- --write).
    const engine = await RecognitionEngine.create();
    const shipped = JSON.parse(readFileSync(path.join(BUNDLED_MODELS_DIR, 'calibration', 'animal.json'), 'utf8')) as KindCalibrationFile;
    expect(shipped.engine_version).toBe(engine.model.version);
    const cattle = engine.calibrationFor('animal', { species: 'cattle', individuals: 40 });
    expect(cattle.source).toBe('kind:shipped:cattle:large');
    expect(cattle.vouched!.fmrUpper).toBeLessThanOrEqual(0.01);
    expect(engine.calibrationFor('animal', { species: 'cattle', individuals: 5 }).matchThreshold).toBeGreaterThan(cattle.matchThreshold);
    // Pairs have thresholds of their own in both bands (npm run bench:kind-pairs -- --write), vouched at ≤ 1%.
    for (const individuals of [5, 40]) {
      const pairs = severalScopeFor(engine.calibrationFor('animal', { species: 'cattle', individuals }), 2)!;
      expect(pairs.matchThreshold).toBeLessThanOrEqual(1);
      expect(pairs.fmrUpper).toBeLessThanOrEqual(0.01);
      // Held to the better photo's evidence, not the photos' agreement: on consecutive frames (a
      // survey track) the agreement is about one photo's score, below the one-photo threshold.
      expect(pairs.combine).toBeUndefined();
    }
    // Nyala (striped coats): a threshold of its own, vouched on nyala-dev, far stricter than cattle's.
    for (const individuals of [5, 40]) {
      const nyala = engine.calibrationFor('animal', { species: 'nyala', individuals });
      expect(nyala.source).toMatch(/^kind:shipped:nyala:/);
      expect(nyala.vouched!.fmrUpper).toBeLessThanOrEqual(0.01);
      expect(nyala.matchThreshold).toBeGreaterThan(engine.calibrationFor('animal', { species: 'cattle', individuals }).matchThreshold);
    }
    // A species no dataset stood for, or a mixed pool: `*`, vouched on every dataset, no looser than nyala's.
    for (const species of ['elephant', null]) {
      const any = engine.calibrationFor('animal', { species, individuals: 40 });
      expect(any.source).toBe('kind:shipped:*:large');
      expect(any.vouched!.fmrUpper).toBeLessThanOrEqual(0.01);
      expect(any.matchThreshold).toBeGreaterThanOrEqual(
        engine.calibrationFor('animal', { species: 'nyala', individuals: 40 }).matchThreshold,
      );
    }
    // Nothing known of the pool: the hand-set defaults.
    expect(engine.calibrationFor('animal')).toBe(DEFAULT_CALIBRATION);
    expect(engine.calibrationFor('tree')).toBe(DEFAULT_CALIBRATION);
    expect(shippedCalibration('tree', engine.model.version, {}, BUNDLED_MODELS_DIR)).toBeNull();
  });
});
