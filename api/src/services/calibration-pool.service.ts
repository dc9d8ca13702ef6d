/**
 * The pooled calibration as the operator and the owner reach it: the operator runs a fit now,
 * reads every version with what it rested on and whom it set aside, promotes or rolls one back;
 * an owner reads and sets whether their answers contribute.
 */
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { JobQueue } from '../../../shared/src/ports/queue.port.js';
import type { calibrationPoolRepo } from '../../../shared/src/repos/calibration-pool.repo.js';

/** A fit reads every contributing owner's samples; on a large pool that takes a while. */
const RUN_WAIT_MS = 10 * 60_000;

/** Schedules a fit every CALIBRATION_POOL_INTERVAL_S (one job per period, whichever process enqueues it first). */
export function startCalibrationPoolSchedule(c: Container): () => void {
  const every = c.config.CALIBRATION_POOL_INTERVAL_S;
  if (!c.config.CALIBRATION_POOLING || every <= 0) return () => {};
  const tick = () =>
    void c.queue
      .enqueue('calibration_pool', {}, { jobId: `calibration-pool-${Math.floor(Date.now() / 1000 / every)}` })
      .catch((err: unknown) => c.logger.warn({ err }, 'could not schedule the pooled calibration'));
  const timer = setInterval(tick, every * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** What the pooled calibration service uses: its repository, and the queue that runs a fit. */
export interface CalibrationPoolDeps {
  db: Queryable;
  pool: Pick<
    typeof calibrationPoolRepo,
    'list' | 'accountNames' | 'byId' | 'promote' | 'rollback' | 'contributes' | 'samplesOfOwner' | 'setContributes'
  >;
  queue: Pick<JobQueue, 'enqueue' | 'waitFor'>;
  /** CALIBRATION_POOLING: whether a fit may be run at all. */
  pooling: boolean;
}

export function createCalibrationPoolService(d: CalibrationPoolDeps) {
  const { db, pool: repo } = d;
  return {
    async run(requestedBy: string) {
      if (!d.pooling) throw new AppError(409, 'pooling_off');
      const id = await d.queue.enqueue('calibration_pool', { requested_by: requestedBy });
      const rec = await d.queue.waitFor(id, RUN_WAIT_MS);
      if (rec?.state !== 'completed') throw new AppError(500, 'internal');
      return rec.result as { gathered: number; cells: { cell: unknown; id: number; status: string; reason: string | null }[] };
    },

    /** Every version, newest first; owners set aside are named (account id and username) to the operator only. */
    async list() {
      const versions = await repo.list(db);
      const ids = versions.flatMap((v) => ((v.report.set_aside as { owner: string }[] | undefined) ?? []).map((s) => s.owner));
      const names = await repo.accountNames(db, [...new Set(ids)]);
      return versions.map((v) => ({
        ...v,
        report: {
          ...v.report,
          set_aside: ((v.report.set_aside as { owner: string }[] | undefined) ?? []).map((s) => ({
            ...s,
            username: names.get(s.owner) ?? null,
          })),
        },
      }));
    },

    async promote(id: number) {
      const v = await repo.byId(db, id);
      if (!v || !v.params) throw ERRORS.notFound();
      await repo.promote(db, id);
      return { id, status: 'serving' as const };
    },

    async rollback(id: number) {
      const v = await repo.byId(db, id);
      if (!v) throw ERRORS.notFound();
      if (v.status !== 'serving') throw new AppError(409, 'calibration_not_serving');
      return { id, status: 'rolled_back' as const, serving: await repo.rollback(db, id) };
    },

    /** The signed-in owner's own choice and samples. */
    async sharing(owner: OwnerScope) {
      return { contribute: await repo.contributes(db, owner), samples: await repo.samplesOfOwner(db, owner) };
    },

    async setSharing(owner: OwnerScope, contribute: boolean) {
      const { deleted } = await repo.setContributes(db, owner, contribute);
      return { contribute, deleted };
    },
  };
}
