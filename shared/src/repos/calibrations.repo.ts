/**
 * Every statement on `calibrations`: a kind's calibration refitted by hand from every stored
 * label (`npm run calibrate`). Rows are only added; the newest of a kind is the one processes
 * started afterwards load.
 *
 * `params` and `report` are jsonb written by the workers' fit; the caller names their shape.
 */
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export const calibrationsRepo = {
  /** The newest calibration of each kind that has one. */
  async newestPerKind<P = Record<string, unknown>>(db: Queryable): Promise<{ kind: Kind; params: P }[]> {
    const r = await db.query<{ kind: Kind; params: P }>('select distinct on (kind) kind, params from calibrations order by kind, id desc');
    return r.rows;
  },

  async insert(db: Queryable, kind: Kind, params: object, report: object): Promise<void> {
    await db.query('insert into calibrations (kind, params, report) values ($1, $2, $3)', [kind, params, report]);
  },
};
