/**
 * Every statement on `owner_calibrations` (migration 150): an owner's own calibration of a kind,
 * stored under the pipeline (engine version, learned version, scope) it was fitted for. Rows are
 * only added; the newest of a pipeline is the one that serves.
 *
 * `params` and `report` are jsonb written by the workers' fit; the caller names their shape.
 * A calibration is its account's own (shared/src/access/policy.ts): every statement takes the
 * owner's `OwnerScope`.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export interface OwnerCalibrationRow<P = Record<string, unknown>, R = Record<string, unknown>> {
  /** Null when the fit could not vouch for any threshold (its report says why). */
  params: P | null;
  report: R;
  created_at: Date | string;
}

export const ownerCalibrationsRepo = {
  /** The newest calibration of an owner's kind for one pipeline, if any. */
  async latest<P = Record<string, unknown>, R = Record<string, unknown>>(
    db: Queryable,
    scope: OwnerScope,
    kind: Kind,
    pipeline: string,
  ): Promise<OwnerCalibrationRow<P, R> | null> {
    const r = await db.query<OwnerCalibrationRow<P, R>>(
      'select params, report, created_at from owner_calibrations where owner_id = $1 and kind = $2 and pipeline = $3 order by id desc limit 1',
      [scope.ownerId, kind, pipeline],
    );
    return r.rows[0] ?? null;
  },

  /** The newest calibration of an owner's kind whatever its pipeline (the learning page shows it), if any. */
  async newestOfKind<P = Record<string, unknown>, R = Record<string, unknown>>(
    db: Queryable,
    scope: OwnerScope,
    kind: Kind,
  ): Promise<(OwnerCalibrationRow<P, R> & { pipeline: string }) | null> {
    const r = await db.query<OwnerCalibrationRow<P, R> & { pipeline: string }>(
      'select pipeline, params, report, created_at from owner_calibrations where owner_id = $1 and kind = $2 order by id desc limit 1',
      [scope.ownerId, kind],
    );
    return r.rows[0] ?? null;
  },

  /** A new fit of the scope's account. */
  async insert(
    db: Queryable,
    scope: OwnerScope,
    row: { kind: Kind; pipeline: string; params: object | null; report: object },
  ): Promise<void> {
    await db.query('insert into owner_calibrations (owner_id, kind, pipeline, params, report) values ($1, $2, $3, $4, $5)', [
      scope.ownerId,
      row.kind,
      row.pipeline,
      row.params,
      row.report,
    ]);
  },
};
