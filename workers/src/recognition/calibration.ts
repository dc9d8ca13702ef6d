import type { Database } from '../../../shared/src/ports/database.port.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { calibrationsRepo } from '../../../shared/src/repos/calibrations.repo.js';
import { identifyVerdictsRepo, type LabelWithEvidence } from '../../../shared/src/repos/identify-verdicts.repo.js';
import { fitCalibration, type CalibrationParams, type Evidence, type FitReport, type LabelledSample } from '../vision/calibrate.js';

type LabelRow = LabelWithEvidence<Evidence>;

/**
 * Turn one labelled query into samples. `correct`: the top candidate is the individual, the
 * rest are not. `wrong`/`other` with a corrected id: that id is, the rest are not; without one,
 * only the top is known to be wrong. `unknown_ok`: nobody enrolled is.
 */
export function samplesFromLabel(row: LabelRow): LabelledSample[] {
  const ranked = row.evidence ?? [];
  if (!ranked.length) return [];
  if (row.verdict === 'correct') return ranked.map((r, i) => ({ evidence: r.evidence, same: i === 0 }));
  if (row.verdict === 'unknown_ok') return ranked.map((r) => ({ evidence: r.evidence, same: false }));
  if (row.correct_id) return ranked.map((r) => ({ evidence: r.evidence, same: r.individual_id === row.correct_id }));
  return [{ evidence: ranked[0]!.evidence, same: false }];
}

/** The newest stored calibration of each kind. */
export async function loadCalibrations(db: Database): Promise<Partial<Record<Kind, CalibrationParams>>> {
  const rows = await calibrationsRepo.newestPerKind<CalibrationParams>(db);
  return Object.fromEntries(rows.map((x) => [x.kind, x.params]));
}

/**
 * Re-fit one kind's calibration from every stored `identify_verdict` label and report how the
 * separation (ROC AUC) changed. With `apply`, the new parameters are stored and used by
 * processes started afterwards.
 */
export async function refitFromLabels(
  db: Database,
  kind: Kind,
  current: CalibrationParams,
  apply: boolean,
): Promise<FitReport & { labels: number; applied: boolean }> {
  const labels = await identifyVerdictsRepo.labelsOfKind<Evidence>(db, kind);
  const samples = labels.flatMap(samplesFromLabel);
  const report = fitCalibration(samples, { previous: current, source: 'fit:identify_verdict' });
  if (apply) {
    await calibrationsRepo.insert(db, kind, report.params, { ...report, params: undefined });
  }
  return { ...report, labels: labels.length, applied: apply };
}
