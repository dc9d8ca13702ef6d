/**
 * Which queue each job runs on: the one place that maps the job catalogue (`jobs.ts`) to queues.
 *
 * One queue per kind of work, so a backlog of one kind (videos) never delays another
 * (single-photo identify), and worker pools choose the queues they serve (`WORKER_QUEUES`).
 * A job name that is not listed here (a job added to the catalogue later) still gets a queue:
 * by its name when it says what it does, else `batch`, the queue for bulk background work.
 */
export const QUEUES = ['identify', 'enrol', 'video', 'batch', 'reindex', 'anchor'] as const;
export type QueueName = (typeof QUEUES)[number];

const BY_JOB: Record<string, QueueName> = {
  identify: 'identify',
  identify_auto: 'identify',
  fruit_lookup: 'identify',
  enroll: 'enrol',
  video: 'video',
  survey: 'video',
  batch: 'batch',
  fruit_batch_item: 'batch',
  reindex: 'reindex',
  train: 'reindex',
  model_register: 'reindex',
  calibration_pool: 'reindex',
  anchor: 'anchor',
};

/** Name-based fallbacks for jobs this table does not list, checked in order. */
const BY_WORD: [RegExp, QueueName][] = [
  [/identif|match|search|lookup/, 'identify'],
  [/enrol|views/, 'enrol'],
  [/video|frame/, 'video'],
  [/anchor|pin/, 'anchor'],
  [/reindex|embed|train|calibr/, 'reindex'],
];

/** The queue a job runs on; every job name has one. */
export function queueOf(jobName: string): QueueName {
  return BY_JOB[jobName] ?? BY_WORD.find(([re]) => re.test(jobName))?.[1] ?? 'batch';
}

/** The job names of `names` that run on `queue`. */
export const jobsOn = (queue: QueueName, names: readonly string[]) => names.filter((n) => queueOf(n) === queue);

export const isQueueName = (s: string): s is QueueName => (QUEUES as readonly string[]).includes(s);

/**
 * `identify=4,video=1` → per-queue worker concurrency; queues not named get `fallback`.
 * Throws on an unknown queue or a bad number, so a typo stops the process at start.
 */
export function parseConcurrency(spec: string, fallback: number): Record<QueueName, number> {
  const out = Object.fromEntries(QUEUES.map((q) => [q, fallback])) as Record<QueueName, number>;
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [q, n] = part.split(/[=:]/);
    const v = Number(n);
    if (!q || !isQueueName(q) || !Number.isInteger(v) || v < 1)
      throw new Error(`bad queue concurrency "${part}" (want queue=N, queues: ${QUEUES.join(', ')})`);
    out[q] = v;
  }
  return out;
}
