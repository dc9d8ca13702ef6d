/**
 * Whether a stored owner calibration (an `owner_calibrations` row) is one identify may serve, read
 * the same way by the worker that serves it and the API that reports it (GET learning `fitted`).
 */
export interface StoredFit {
  params: unknown;
  report: { effective_n?: unknown };
}

/**
 * Fitted under the old rule: every photo counted as independent and strangers mixed with enrolled
 * animals (its report has no `effective_n`). On holstein-dev herds such fits let through more false
 * matches than the 1% they promised (benchmarks/results/fit-holds-*; benchmarks/results/README.md,
 * "A fit's promise against real photos"), so they are not served
 * and a refit replaces them (workers/src/recognition/owner-calibration.ts).
 */
export const isStaleFit = (f: StoredFit): boolean => f.params !== null && f.report.effective_n === undefined;

/** Has a threshold and was fitted under the per-kind, effective-count bound. */
export const fitServes = (f: StoredFit): boolean => f.params !== null && !isStaleFit(f);
