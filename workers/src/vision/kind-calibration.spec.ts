import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION, type CalibrationParams } from './calibrate.js';
import { saveKindCalibration, shippedCalibration } from './kind-calibration.js';
import { BUNDLED_MODELS_DIR } from './registry.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kind-cal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const params: CalibrationParams = {
  ...DEFAULT_CALIBRATION, source: 'kind:shipped', matchThreshold: 0.83,
  fusion: { prior: 0.3, calibrators: { global: { method: 'platt', a: 4, b: -2 } }, weights: { global: 1 }, intercept: -1 },
  vouched: { fmrUpper: 0.009, individuals: 111, queries: 4000 },
};

describe('the kind\'s shipped calibration', () => {
  it('serves only the engine version and kind it was fitted on', () => {
    saveKindCalibration({ kind: 'animal', engine_version: 'v1+p4', fitted_at: '2026-11-26T00:00:00Z', params, fit: {}, evaluation: {} }, dir);
    expect(shippedCalibration('animal', 'v1+p4', null, dir)).toEqual(params);
    // Another engine version's scores mean something else: nothing is served for it.
    expect(shippedCalibration('animal', 'v1+p5', null, dir)).toBeNull();
    expect(shippedCalibration('fruit', 'v1+p4', null, dir)).toBeNull();
  });

  it('a new file replaces what was read before', () => {
    saveKindCalibration({ kind: 'animal', engine_version: 'v1+p4', fitted_at: '2026-11-26T00:00:00Z', params: { ...params, matchThreshold: 0.91 }, fit: {}, evaluation: {} }, dir);
    expect(shippedCalibration('animal', 'v1+p4', null, dir)?.matchThreshold).toBe(0.91);
  });

  it('a species the fit vouched for alone gets its own threshold; any other, the one that holds for all', () => {
    const cattle = { matchThreshold: 0.72, uncertainThreshold: 0.1, vouched: { fmrUpper: 0.0085, individuals: 68, queries: 2856 } };
    saveKindCalibration({ kind: 'animal', engine_version: 'v1+p4', fitted_at: '2026-11-26T00:00:00Z', params, species: { cattle }, fit: {}, evaluation: {} }, dir);
    expect(shippedCalibration('animal', 'v1+p4', 'cattle', dir)).toMatchObject({ ...cattle, fusion: params.fusion, source: 'kind:shipped:cattle' });
    expect(shippedCalibration('animal', 'v1+p4', 'goat', dir)).toEqual(params);
    expect(shippedCalibration('animal', 'v1+p4', null, dir)).toEqual(params);
  });

  it('trees have none shipped: the hand-set defaults serve', () => {
    expect(shippedCalibration('tree', 'any', null, BUNDLED_MODELS_DIR)).toBeNull();
  });
});
