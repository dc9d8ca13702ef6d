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
/** A pool's size band; unknown size counts as small, the stricter threshold. */
export const bandOf = (individuals: number | undefined): Band =>
  individuals !== undefined && individuals >= SMALL_HERD_BELOW ? 'large' : 'small';
/** A band's thresholds: one photo, and (`several`, bench:kind-pairs) queries of two photos. */
export type BandThreshold = Pick<CalibrationParams, 'matchThreshold' | 'uncertainThreshold' | 'vouched' | 'several'>;

export interface KindCalibrationFile {
  kind: Kind;
  /** RecognitionEngine.model.version it serves: the one it was fitted on, or `carried_over`'s successor. */
  engine_version: string;
  /**
   * Set when a pipeline revision left this kind's descriptors and evidence unchanged, so the fit
   * still holds for the new engine version: the version it was fitted on, and why it carries over.
   */
  carried_over?: { from: string; why: string };
  fitted_at: string;
  /** The fused model, with the strictest threshold of the fit (every dataset, a small herd). */
  params: CalibrationParams;
  /**
   * Thresholds by species (catalogue id) and herd size band, each vouched with the same fused model
   * on the queries of the dataset that stands for that species; `*`: the one threshold that held
   * on every dataset, which serves a species no dataset stood for (shippedCalibration). It is set by
   * striped coats' strongest false match, so such a species hears `match` rarely until its owner's
   * own photos can vouch for a threshold of their own.
   */
  thresholds: Record<string, Partial<Record<Band, BandThreshold>>>;
  /** How it was fitted (datasets, herds, queries, per-dataset thresholds and bounds). */
  fit: Record<string, unknown>;
  /** What it did on real queries, per dataset. */
  evaluation: Record<string, unknown>;
}

/** What identify knows of the pool it searched. */
export interface PoolFacts {
  /**
   * Its one species; null: several (a mixed pool); absent: not known to the caller (the hand-set
   * defaults then answer).
   */
  species?: string | null;
  /** How many individuals it holds; unknown: treated as a small herd, the stricter threshold. */
  individuals?: number;
}

/** The thresholds key of the threshold that held on every dataset. */
export const ANY_SPECIES = '*';

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
 * species and herd size. A species no dataset stood for, or a pool of several species
 * (`species: null`), gets `*`: the one threshold that held at ≤ 1% on every species measured. The
 * hand-set defaults it replaces let false matches through on nyala herds, and `*` costs a few
 * correct matches on holstein herds (the file's `evaluation`, `hand_set` against `any_species`;
 * benchmarks/results/README.md, "The kind's shipped calibration"): the price of `*` is small where
 * the hand-set numbers were safe, and it is what keeps an unmeasured striped coat from a confident
 * wrong name.
 * Null when the caller knows nothing of the pool (`species` absent), or no file was fitted for
 * this engine version (or this kind).
 */
export function shippedCalibration(
  kind: Kind,
  engineVersion: string,
  pool: PoolFacts = {},
  dir = BUNDLED_MODELS_DIR,
): CalibrationParams | null {
  const f = read(kind, engineVersion, dir);
  if (!f || pool.species === undefined) return null;
  const band = bandOf(pool.individuals);
  const known = pool.species && pool.species !== ANY_SPECIES ? f.thresholds?.[pool.species]?.[band] : undefined;
  const own = known ?? f.thresholds?.[ANY_SPECIES]?.[band];
  const scope = known ? pool.species : ANY_SPECIES;
  return own ? { ...f.params, ...own, source: `${f.params.source}:${scope}:${band}` } : null;
}

/** Whether a shipped calibration is the every-species one (`*`), not its species' own. */
export function isAnySpecies(params: Pick<CalibrationParams, 'source'>): boolean {
  return params.source.includes(`:${ANY_SPECIES}:`);
}

export function saveKindCalibration(f: KindCalibrationFile, dir = BUNDLED_MODELS_DIR): string {
  const file = fileOf(f.kind, dir);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(f, null, 1)}\n`);
  cache.clear();
  return file;
}
