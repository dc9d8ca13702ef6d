import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../ports/database.port.js';
import { assertJobId, type EnqueueOptions, type JobQueue, type JobRecord } from '../../ports/queue.port.js';
import { assertHandlers, parsePayload, type JobHandlers, type JobName } from '../../domain/jobs.js';
import { isUnrecoverable, toJobError } from './job-errors.js';

export interface InProcessQueueOptions {
  concurrency: number;
  attempts: number;
  /** Base delay before a retry; doubled on each attempt. */
  backoffMs?: number;
  /** How often idle workers look for due retries. */
  pollMs?: number;
}

interface Row {
  id: string; name: JobName; state: JobRecord['state']; data: unknown; result: unknown; error: unknown;
  attempts: number; created_at: Date | string; finished_at: Date | string | null;
}

const toRecord = (r: Row): JobRecord => ({
  id: r.id,
  name: r.name,
  state: r.state,
  data: r.data as JobRecord['data'],
  // As under BullMQ: a result only once completed, an error only once failed for good (a job
  // that failed and then succeeded on a retry still has its old error in the row).
  ...(r.state === 'completed' && r.result ? { result: r.result as Record<string, unknown> } : {}),
  ...(r.state === 'failed' && r.error ? { error: r.error as JobRecord['error'] } : {}),
  attempts: r.attempts,
  created_at: new Date(r.created_at).toISOString(),
  ...(r.finished_at ? { finished_at: new Date(r.finished_at).toISOString() } : {}),
});

/**
 * The embedded queue: jobs are rows in the database and run in this process. Rows survive a
 * crash, and a job found `active` at start was interrupted, so it goes back to `waiting` and
 * runs again — which is why handlers must be idempotent, exactly as under BullMQ.
 */
export function createInProcessQueue(db: Database, o: InProcessQueueOptions): JobQueue {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const inFlight = new Set<Promise<void>>();
  let handlers: JobHandlers | null = null;
  let closing = false;
  let timer: NodeJS.Timeout | null = null;

  async function claim(): Promise<Row | null> {
    const r = await db.query<Row>(
      `update jobs set state = 'active', attempts = attempts + 1
        where id = (select id from jobs where state = 'waiting' and run_after <= now()
                    order by created_at limit 1 for update skip locked)
        returning *`,
    );
    return r.rows[0] ?? null;
  }

  async function run(row: Row): Promise<void> {
    try {
      const data = parsePayload(row.name, row.data);
      const handler = handlers![row.name] as (d: unknown, c: { id: string; attempt: number }) => Promise<unknown>;
      const result = await handler(data, { id: row.id, attempt: row.attempts });
      await db.query(`update jobs set state = 'completed', result = $2, finished_at = now() where id = $1`, [row.id, result ?? {}]);
    } catch (err) {
      const final = isUnrecoverable(err) || row.attempts >= o.attempts;
      const delay = (o.backoffMs ?? 500) * 2 ** (row.attempts - 1);
      await db.query(
        final
          ? `update jobs set state = 'failed', error = $2, finished_at = now() where id = $1`
          : `update jobs set state = 'waiting', error = $2, run_after = now() + ($3 || ' milliseconds')::interval where id = $1`,
        final ? [row.id, toJobError(err)] : [row.id, toJobError(err), String(delay)],
      );
    }
    events.emit(row.id);
  }

  // One claimer at a time, or two pumps could both see a free slot and overshoot concurrency.
  // Kept as a promise so close() can wait for a claim that is on its way back from the database.
  let pumping: Promise<void> | null = null;
  function pump(): Promise<void> {
    pumping ??= (async () => {
      while (handlers && !closing && inFlight.size < o.concurrency) {
        const row = await claim();
        if (!row) return;
        const p = run(row).finally(() => {
          inFlight.delete(p);
          void pump();
        });
        inFlight.add(p);
      }
    })().finally(() => {
      pumping = null;
    });
    return pumping;
  }

  const get = async (id: string) => {
    const r = await db.query<Row>('select * from jobs where id = $1', [id]);
    return r.rows[0] ? toRecord(r.rows[0]) : null;
  };

  return {
    kind: 'inprocess',
    async enqueue(name, data, opts: EnqueueOptions = {}) {
      if (opts.jobId !== undefined) assertJobId(opts.jobId);
      const parsed = parsePayload(name, data);
      const id = opts.jobId ?? randomUUID();
      await db.query(
        `insert into jobs (id, name, state, data, max_attempts) values ($1, $2, 'waiting', $3, $4) on conflict (id) do nothing`,
        [id, name, parsed, o.attempts],
      );
      void pump();
      return id;
    },
    waitFor(id, timeoutMs) {
      const done = (r: JobRecord | null) => !r || r.state === 'completed' || r.state === 'failed';
      return new Promise((resolve, reject) => {
        let settled = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          clearTimeout(t);
          events.off(id, check);
          get(id).then(resolve, reject);
        };
        // Listen before the first look, so a job finishing in between is not missed.
        // A retry also emits; only a terminal state ends the wait.
        const check = () => void get(id).then((r) => done(r) && finish(), reject);
        const t = setTimeout(finish, timeoutMs);
        events.on(id, check);
        check();
      });
    },
    get,
    async startWorker(h) {
      assertHandlers(h);
      handlers = h;
      // Anything still marked active was cut off by a crash or kill of the previous process.
      await db.query(`update jobs set state = 'waiting' where state = 'active'`);
      timer = setInterval(() => void pump(), o.pollMs ?? 250);
      timer.unref();
      void pump();
    },
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      // A claim in progress may still start a job, so wait until neither is left.
      while (pumping || inFlight.size) await Promise.allSettled([pumping, ...inFlight]);
    },
  };
}
