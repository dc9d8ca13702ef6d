/**
 * The kind's shipped calibration: a fused calibration (fusion.ts) fitted offline on many
 * individuals of the development sets' galleries and measured on real query photos of other
 * individuals (benchmarks/kind-calibration.ts), stored in `models/calibration/<kind>.json` for the
 * one engine version it was fitted on. It answers where an owner's own photos cannot yet vouch for
 * a threshold (a herd of a few dozen or fewer), instead of the hand-set DEFAULT_CALIBRATION. A
 * file of another engine version is ignored: its scores would mean something else.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationParams } from './calibrate.js';
import { BUNDLED_MODELS_DIR } from './registry.js';
import type { Kind } from './settings.js';

export interface KindCalibrationFile {
  kind: Kind;
  /** RecognitionEngine.model.version it was fitted on. */
  engine_version: string;
  fitted_at: string;
  /** Every species of the kind: the threshold that keeps the bound on every dataset of the fit. */
  params: CalibrationParams;
  /**
   * Thresholds of species (catalogue ids) that a dataset of the fit stands for, vouched on that
   * dataset alone with the same fused model: a herd all of one such species is decided by it.
   */
  species?: Record<string, Pick<CalibrationParams, 'matchThreshold' | 'uncertainThreshold' | 'vouched'>>;
  /** How it was fitted (datasets, herds, queries, per-dataset thresholds and bounds). */
  fit: Record<string, unknown>;
  /** What it did on real queries of individuals the fit never saw, per dataset. */
  evaluation: Record<string, unknown>;
}

const fileOf = (kind: Kind, dir = BUNDLED_MODELS_DIR) => path.join(dir, 'calibration', `${kind}.json`);

const cache = new Map<string, KindCalibrationFile | null>();

function read(kind: Kind, engineVersion: string, dir: string): KindCalibrationFile | null {
  const key = `${dir}|${kind}|${engineVersion}`;
  if (cache.has(key)) return cache.get(key)!;
  const file = fileOf(kind, dir);
  let f: KindCalibrationFile | null = null;
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as KindCalibrationFile;
    if (stored.engine_version === engineVersion && stored.kind === kind) f = stored;
  }
  cache.set(key, f);
  return f;
}

/**
 * The shipped calibration of a kind for this engine version, with the threshold of `species` when
 * the fit vouched one for it; null when none was fitted for this version.
 */
export function shippedCalibration(kind: Kind, engineVersion: string, species: string | null = null, dir = BUNDLED_MODELS_DIR): CalibrationParams | null {
  const f = read(kind, engineVersion, dir);
  if (!f) return null;
  const own = species ? f.species?.[species] : undefined;
  return own ? { ...f.params, ...own, source: `${f.params.source}:${species}` } : f.params;
}

export function saveKindCalibration(f: KindCalibrationFile, dir = BUNDLED_MODELS_DIR): string {
  const file = fileOf(f.kind, dir);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(f, null, 1)}\n`);
  cache.clear();
  return file;
}
