import type { Database } from '../../ports/database.port.js';
import type { QueueAdmin, QueueStats } from '../../ports/queue.port.js';
import { jobNames } from '../../domain/jobs.js';
import { QUEUES, jobsOn, queueOf, type QueueName } from '../../domain/queues.js';
import { jobsRepo } from '../../repos/jobs.repo.js';

/**
 * Operator steering for the embedded queue. Embedded mode is one process, so pause and
 * concurrency live in memory (as a restart of a BullMQ worker pool would pick up its configured
 * values again); failed jobs are rows, retried or deleted through the jobs repository.
 */
export function inProcessAdmin(db: Database, o: { concurrency: number; queueConcurrency?: Partial<Record<QueueName, number>> }) {
  const paused = new Set<QueueName>();
  const steered = new Map<QueueName, number>();
  const concurrency = (q: QueueName) => steered.get(q) ?? o.queueConcurrency?.[q] ?? o.concurrency;
  const names = (q: QueueName) => jobsOn(q, jobNames);

  const admin: QueueAdmin = {
    async stats() {
      const rows = await jobsRepo.countsByState(db);
      const out = new Map<QueueName, QueueStats>(
        QUEUES.map((q) => [
          q,
          {
            queue: q,
            waiting: 0,
            active: 0,
            delayed: 0,
            failed: 0,
            completed: 0,
            paused: paused.has(q),
            concurrency: concurrency(q),
          },
        ]),
      );
      for (const row of rows) {
        const s = out.get(queueOf(row.name))!;
        if (row.state === 'waiting') s[row.delayed ? 'delayed' : 'waiting'] += row.n;
        else s[row.state as 'active' | 'failed' | 'completed'] += row.n;
      }
      return [...out.values()];
    },
    pause: async (q) => void paused.add(q),
    resume: async (q) => void paused.delete(q),
    retryFailed: (q) => jobsRepo.retryFailed(db, names(q)),
    removeFailed: (q) => jobsRepo.removeFailed(db, names(q)),
    setConcurrency: async (q, n) => void steered.set(q, n),
  };
  return { admin, paused, concurrency };
}
