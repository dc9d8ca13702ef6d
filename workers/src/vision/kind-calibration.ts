/**
 * The kind's shipped calibration: a fused calibration (fusion.ts) fitted offline on many
 * individuals of the development sets' galleries and measured on their real query photos, which the
 * fit never read, and on individuals never enrolled (benchmarks/kind-calibration.ts), stored in `models/calibration/<kind>.json` for the
 * one engine version it was fitted on. It answers where an owner's own photos cannot yet vouch for
 * a threshold (a herd of a few dozen or fewer), instead of the hand-set DEFAULT_CALIBRATION. A
 * file of another engine version is ignored: its scores would mean something else.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationParams } from './calibrate.js';
import { BUNDLED_MODELS_DIR } from './registry.js';
import type { Kind } from './settings.js';

/**
 * Herds of fewer individuals than this are `small`. With few candidates a stranger's best match
 * stands far ahead of the runner-up, and one generic-looking animal draws strangers again and
 * again: on holstein-dev every false match of the fitted threshold fell in 5-cow herds
 * (benchmarks/results/kind-calibration-*.json), so small herds have a threshold of their own.
 */
export const SMALL_HERD_BELOW = 12;
export type Band = 'small' | 'large';
/** A band's thresholds: one photo, and (`several`, bench:kind-pairs) queries of two photos. */
export type BandThreshold = Pick<CalibrationParams, 'matchThreshold' | 'uncertainThreshold' | 'vouched' | 'several'>;

export interface KindCalibrationFile {
  kind: Kind;
  /** RecognitionEngine.model.version it was fitted on. */
  engine_version: string;
  fitted_at: string;
  /** The fused model, with the strictest threshold of the fit (every dataset, a small herd). */
  params: CalibrationParams;
  /**
   * Thresholds by species (catalogue id) and herd size band, each vouched with the same fused model
   * on the queries of the dataset that stands for that species. Only these serve: a species no
   * dataset stood for keeps the hand-set defaults, because the one threshold that held on every
   * dataset (`*`, kept for the record) is set by striped coats' strongest false match and would
   * answer `match` almost never.
   */
  thresholds: Record<string, Partial<Record<Band, BandThreshold>>>;
  /** How it was fitted (datasets, herds, queries, per-dataset thresholds and bounds). */
  fit: Record<string, unknown>;
  /** What it did on real queries, per dataset. */
  evaluation: Record<string, unknown>;
}

/** What identify knows of the pool it searched. */
export interface PoolFacts {
  /** Its one species, when it is one. */
  species?: string | null;
  /** How many individuals it holds; unknown: treated as a small herd, the stricter threshold. */
  individuals?: number;
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
 * The shipped calibration of a kind for this engine version, with the threshold of the pool's
 * species and herd size; null when none was fitted for this version or for that species.
 */
export function shippedCalibration(kind: Kind, engineVersion: string, pool: PoolFacts = {}, dir = BUNDLED_MODELS_DIR): CalibrationParams | null {
  const f = read(kind, engineVersion, dir);
  if (!f || !pool.species || pool.species === '*') return null;
  const band: Band = pool.individuals !== undefined && pool.individuals >= SMALL_HERD_BELOW ? 'large' : 'small';
  const own = f.thresholds?.[pool.species]?.[band];
  return own ? { ...f.params, ...own, source: `${f.params.source}:${pool.species}:${band}` } : null;
}

export function saveKindCalibration(f: KindCalibrationFile, dir = BUNDLED_MODELS_DIR): string {
  const file = fileOf(f.kind, dir);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(f, null, 1)}\n`);
  cache.clear();
  return file;
}
