import type { Database } from '../../ports/database.port.js';
import type { QueueAdmin, QueueStats } from '../../ports/queue.port.js';
import { jobNames } from '../../domain/jobs.js';
import { QUEUES, jobsOn, queueOf, type QueueName } from '../../domain/queues.js';

/**
 * Operator steering for the embedded queue. Embedded mode is one process, so pause and
 * concurrency live in memory (as a restart of a BullMQ worker pool would pick up its configured
 * values again); failed jobs are rows, retried or deleted in SQL.
 */
export function inProcessAdmin(db: Database, o: { concurrency: number; queueConcurrency?: Partial<Record<QueueName, number>> }) {
  const paused = new Set<QueueName>();
  const steered = new Map<QueueName, number>();
  const concurrency = (q: QueueName) => steered.get(q) ?? o.queueConcurrency?.[q] ?? o.concurrency;
  const names = (q: QueueName) => jobsOn(q, jobNames);

  const admin: QueueAdmin = {
    async stats() {
      const r = await db.query<{ name: string; state: string; delayed: boolean; n: number }>(
        `select name, state, (state = 'waiting' and run_after > now()) as delayed, count(*)::int as n
           from jobs group by 1, 2, 3`,
      );
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
      for (const row of r.rows) {
        const s = out.get(queueOf(row.name))!;
        if (row.state === 'waiting') s[row.delayed ? 'delayed' : 'waiting'] += row.n;
        else s[row.state as 'active' | 'failed' | 'completed'] += row.n;
      }
      return [...out.values()];
    },
    pause: async (q) => void paused.add(q),
    resume: async (q) => void paused.delete(q),
    async retryFailed(q) {
      const r = await db.query(
        `update jobs set state = 'waiting', attempts = 0, error = null, finished_at = null, run_after = now()
          where state = 'failed' and name = any($1::text[])`,
        [names(q)],
      );
      return r.affectedRows ?? 0;
    },
    async removeFailed(q) {
      const r = await db.query(`delete from jobs where state = 'failed' and name = any($1::text[])`, [names(q)]);
      return r.affectedRows ?? 0;
    },
    setConcurrency: async (q, n) => void steered.set(q, n),
  };
  return { admin, paused, concurrency };
}
