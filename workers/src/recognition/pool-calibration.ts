/**
 * The pooled calibration job (`calibration_pool`): every owner's labelled answers become samples
 * (their scores and whether they were right, wrong or a stranger), each cell (kind, species, herd
 * size band) is fitted on them (pooled-fit.ts), the fit is scored in shadow on each owner's newest
 * answers it did not read, and promoted when it keeps its bound there. Scheduled by the API
 * (CALIBRATION_POOL_INTERVAL_S) and on an operator's request. Idempotent: a retry gathers nothing
 * twice (samples are keyed by their answer) and fits again from the same samples.
 */
import type { Container } from '../../../shared/src/container.js';
import {
  calibrationPoolRepo as repo,
  type LabelledAnswer,
  type PoolCell,
  type SampleRow,
} from '../../../shared/src/repos/calibration-pool.repo.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { severalScopes, type CalibrationParams, type Evidence } from '../vision/calibrate.js';
import { fusedProbability } from '../vision/fusion.js';
import { bandOf } from '../vision/kind-calibration.js';
import { fitPooledCalibration, type PoolSample, type SampleOutcome } from './pooled-fit.js';

/** What a labelled answer says of its top answer. */
export function outcomeOf(a: Pick<LabelledAnswer, 'verdict' | 'correct_id' | 'evidence'>): SampleOutcome | null {
  const top = a.evidence?.[0];
  if (!top) return null;
  if (a.verdict === 'unknown_ok') return 'stranger';
  if (a.verdict === 'correct' || (a.correct_id !== null && a.correct_id === top.individual_id)) return 'right';
  return 'wrong';
}

/** Turns labelled answers not yet sampled into samples. Answers how many it stored. */
export async function gatherSamples(c: Pick<Container, 'db'>, engineVersion: string): Promise<number> {
  const answers = await repo.labelledSince(c.db, engineVersion);
  const pools = new Map<string, { species: string; individuals: number }>();
  let stored = 0;
  for (const a of answers) {
    const outcome = outcomeOf(a);
    if (!outcome) continue;
    const key = `${a.owner_id}|${a.kind}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = await repo.poolOf(c.db, a.owner_id, a.kind);
      pools.set(key, pool);
    }
    // Only numbers leave the answer: the top candidate's scores.
    const e = a.evidence![0]!.evidence;
    const evidence = Object.fromEntries(Object.entries(e).filter(([, v]) => typeof v === 'number' && Number.isFinite(v)));
    const sample: SampleRow = {
      owner_id: a.owner_id,
      source: 'verdict',
      ref: a.query_id,
      kind: a.kind,
      engine_version: engineVersion,
      species: pool.species,
      band: bandOf(pool.individuals),
      views: a.views,
      outcome,
      evidence,
      labelled_at: a.labelled_at,
    };
    await repo.upsertSample(c.db, sample);
    stored++;
  }
  return stored;
}

/**
 * Each owner's newest `share` of samples of each outcome (right, wrong, stranger) and number of
 * photos (at least one of five), for shadow scoring; the rest are fitted. By outcome, so an owner
 * who labelled their own animals first and strangers later still leaves some of each to score the
 * fit on; by number of photos, so an owner who asks single photos first and then several at a time
 * does not hand every several-photo answer to the shadow and leave that cell nothing to fit.
 */
export function holdBack<T extends PoolSample>(samples: readonly T[], share: number): { fit: T[]; held: T[] } {
  if (share <= 0) return { fit: [...samples], held: [] };
  const by = new Map<string, T[]>();
  for (const s of samples) {
    const key = `${s.owner}|${s.outcome}|${s.views}`;
    const list = by.get(key);
    if (list) list.push(s);
    else by.set(key, [s]);
  }
  const fit: T[] = [];
  const held: T[] = [];
  for (const list of by.values()) {
    const sorted = [...list].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
    const k = sorted.length >= 5 ? Math.max(1, Math.floor(sorted.length * share)) : 0;
    fit.push(...sorted.slice(0, sorted.length - k));
    held.push(...sorted.slice(sorted.length - k));
  }
  return { fit, held };
}

/** False and correct `match`es among held-back samples at one threshold. */
function scoreAt(params: CalibrationParams, held: readonly PoolSample[], threshold: number) {
  const matched = held.filter((s) => params.fusion && fusedProbability(params.fusion, s.evidence) >= threshold);
  const rights = held.filter((s) => s.outcome === 'right').length;
  return {
    samples: held.length,
    false_matches: matched.filter((s) => s.outcome !== 'right').length,
    correct_match_rate: rights ? Math.round((matched.filter((s) => s.outcome === 'right').length / rights) * 1e4) / 1e4 : 0,
  };
}

/**
 * How a calibration answers held-back samples: one-photo samples at its threshold, and each
 * several-photo size it vouches for at that size's threshold (`several`).
 */
export function shadowScore(params: CalibrationParams, held: readonly PoolSample[]) {
  const several = severalScopes(params)
    .filter((s) => s.matchThreshold <= 1 && !s.combine)
    .map((s) => ({
      photos: s.groupSize,
      ...scoreAt(
        params,
        held.filter((h) => h.views === s.groupSize),
        s.matchThreshold,
      ),
    }));
  return {
    ...scoreAt(
      params,
      held.filter((s) => s.views === 1),
      params.matchThreshold,
    ),
    several,
  };
}

/** Held-back answers that contradict the bound (more than 1% false matches, at one photo or at any size vouched) stop a promotion. */
export function shadowKeeps(score: ReturnType<typeof shadowScore>): boolean {
  return [score, ...score.several].every((s) => s.false_matches <= Math.floor(s.samples * 0.01));
}

export type PoolRunResult = {
  gathered: number;
  cells: { cell: PoolCell; id: number; status: string; reason: string | null }[];
};

/** One run of the pooled calibration for the engine version serving now. */
export async function runCalibrationPool(c: Container, engineVersion: string): Promise<PoolRunResult> {
  if (!c.config.CALIBRATION_POOLING) return { gathered: 0, cells: [] };
  const gathered = await gatherSamples(c, engineVersion);
  const out: PoolRunResult['cells'] = [];
  for (const cell of await repo.cells(c.db, engineVersion)) {
    const rows = await repo.samplesOf(c.db, cell);
    const samples: PoolSample[] = rows.map((r, i) => ({
      owner: r.owner_id,
      evidence: r.evidence as unknown as Evidence,
      outcome: r.outcome,
      views: r.views,
      order: i,
    }));
    const { fit, held } = holdBack(samples, c.config.CALIBRATION_POOL_SHADOW_SHARE);
    const report = fitPooledCalibration(fit, {
      minOwners: c.config.CALIBRATION_POOL_MIN_OWNERS,
      maxPerOwner: c.config.CALIBRATION_POOL_MAX_PER_OWNER,
      source: `pooled:${cell.kind}:${cell.species}:${cell.band}`,
    });
    // The report names owners set aside for the operator by account id; it never leaves the admin routes.
    if (report.set_aside.length) c.logger.warn({ cell, set_aside: report.set_aside }, 'owners set aside from the pooled calibration');
    const { params, ...rest } = report;
    if (!params) {
      const id = await repo.insertVersion(c.db, cell, { params: null, report: rest, shadow: null, status: 'refused' });
      out.push({ cell, id, status: 'refused', reason: report.reason });
      continue;
    }
    const serving = await repo.serving(c.db, cell);
    const candidate = shadowScore(params, held);
    const shadow = {
      held_back: held.length,
      candidate,
      serving: serving?.params ? { id: serving.id, ...shadowScore(serving.params as unknown as CalibrationParams, held) } : null,
    };
    // Held-back answers that contradict the bound stop the promotion; the operator still may.
    const keeps = shadowKeeps(candidate);
    const id = await repo.insertVersion(c.db, cell, { params, report: rest, shadow, status: 'shadow' });
    const promote = keeps && c.config.CALIBRATION_POOL_AUTO_PROMOTE;
    if (promote) await repo.promote(c.db, id);
    out.push({ cell, id, status: promote ? 'serving' : 'shadow', reason: null });
  }
  return { gathered, cells: out };
}

/**
 * The pooled calibration that serves a pool: its species' own where one serves, else every
 * species' (`*`). Null with pooling off, or for a pipeline it was not fitted on.
 */
export async function servingPooled(
  c: Pick<Container, 'db' | 'config'>,
  kind: Kind,
  engineVersion: string,
  pool: { species: string | null; individuals: number },
): Promise<{ id: number; params: CalibrationParams; report: Record<string, unknown>; created_at: string } | null> {
  if (!c.config.CALIBRATION_POOLING) return null;
  const band = bandOf(pool.individuals);
  const species = kind === 'animal' && pool.species ? [pool.species, '*'] : ['*'];
  for (const s of species) {
    const v = await repo.serving(c.db, { kind, engine_version: engineVersion, species: s, band });
    if (v?.params)
      return {
        id: v.id,
        params: { ...(v.params as unknown as CalibrationParams), source: `pooled:v${v.id}` },
        report: v.report,
        created_at: v.created_at,
      };
  }
  return null;
}
