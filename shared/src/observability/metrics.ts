import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobHooks, QueueAdmin } from '../ports/queue.port.js';

/**
 * Prometheus metrics of one process (prom-client). Each container has its own registry, so
 * several services in one test process never collide. Names:
 *
 * - `markless_http_requests_total{method,route,status}`, `markless_http_request_duration_seconds{method,route}`
 * - `markless_job_wait_seconds{queue,job}`, `markless_job_run_seconds{queue,job,outcome}`,
 *   `markless_jobs_failed_total{queue,job}` (failed for good)
 * - `markless_queue_depth{queue,state}` (read from the queue at scrape time)
 * - `markless_onnx_provider_info{provider,model,version}`, `markless_embed_batch_size`
 * - `markless_index_size{owner}` (vectors in each owner's HNSW index held by this process)
 * - `markless_stage_seconds{stage}` (time per pipeline stage: decode, detect, embed, local, search,
 *   verify, database, blobs; engine stages per batch), `markless_engine_waiting{lane}` (photos
 *   waiting for an engine pool thread), `markless_engine_busy_threads`
 * - `markless_learning_runs{kind,status}`, `markless_learning_last_run_timestamp_seconds{kind,status}`
 *   (the learning loop's runs and decisions, read from the database at scrape time)
 * - `markless_process_*` / `markless_nodejs_*`: prom-client's defaults (memory, CPU, event loop)
 */
export interface Metrics {
  readonly registry: Registry;
  /** `route` is the route template (`/api/jobs/{id}`), never the raw path: bounded label values. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  readonly jobHooks: Required<JobHooks>;
  recognition(model: { name: string; version: string }, provider: string): void;
  embedBatch(size: number): void;
  indexSize(owner: string, size: number): void;
  /** Seconds spent in one pipeline stage (engine stages: summed over one batch). */
  stage(stage: string, seconds: number): void;
  /** The engine pool's backlog per lane and its busy threads. */
  enginePool(waiting: Record<string, number>, busy: number): void;
  /** Report this queue's depths at every scrape. */
  watchQueue(admin: QueueAdmin): void;
  /** Report the learning loop's runs at every scrape (workers/src/learn/loop.ts `runTotals`). */
  watchLearning(read: () => Promise<{ kind: string; status: string; n: number; last: number | null }[]>): void;
  render(): Promise<string>;
  readonly contentType: string;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'markless_' });
  const reg = { registers: [registry] };
  const requests = new Counter({
    name: 'markless_http_requests_total',
    help: 'HTTP requests by route template and status',
    labelNames: ['method', 'route', 'status'],
    ...reg,
  });
  const latency = new Histogram({
    name: 'markless_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: SECONDS,
    ...reg,
  });
  const wait = new Histogram({
    name: 'markless_job_wait_seconds',
    help: 'Time a job waited in its queue before a run started',
    labelNames: ['queue', 'job'],
    buckets: SECONDS,
    ...reg,
  });
  const run = new Histogram({
    name: 'markless_job_run_seconds',
    help: 'Time one run of a job took',
    labelNames: ['queue', 'job', 'outcome'],
    buckets: SECONDS,
    ...reg,
  });
  const failed = new Counter({
    name: 'markless_jobs_failed_total',
    help: 'Jobs that failed for good (no retry left, or bad input)',
    labelNames: ['queue', 'job'],
    ...reg,
  });
  const provider = new Gauge({
    name: 'markless_onnx_provider_info',
    help: 'ONNX Runtime execution provider and model this process loaded (value 1)',
    labelNames: ['provider', 'model', 'version'],
    ...reg,
  });
  const batch = new Histogram({
    name: 'markless_embed_batch_size',
    help: 'Images per ONNX embedding run',
    buckets: [1, 2, 4, 8, 16, 32, 64],
    ...reg,
  });
  const index = new Gauge({
    name: 'markless_index_size',
    help: "Vectors in an owner's HNSW index held by this process",
    labelNames: ['owner'],
    ...reg,
  });
  const stages = new Histogram({
    name: 'markless_stage_seconds',
    help: 'Time per pipeline stage (engine stages summed over a batch)',
    labelNames: ['stage'],
    buckets: SECONDS,
    ...reg,
  });
  const poolWaiting = new Gauge({
    name: 'markless_engine_waiting',
    help: 'Photos waiting for an engine pool thread, per lane',
    labelNames: ['lane'],
    ...reg,
  });
  const poolBusy = new Gauge({ name: 'markless_engine_busy_threads', help: 'Engine pool threads describing photos now', ...reg });
  const admins: QueueAdmin[] = [];
  let learning: Parameters<Metrics['watchLearning']>[0] | null = null;
  for (const [name, help, value] of [
    [
      'markless_learning_runs',
      'Learning loop runs by kind and outcome (queued, adopted, refused, skipped, failed, rolled_back)',
      (r: { n: number }) => r.n,
    ],
    [
      'markless_learning_last_run_timestamp_seconds',
      'When the newest learning run of each kind and outcome finished (or was queued)',
      (r: { last: number | null }) => r.last,
    ],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['kind', 'status'],
      ...reg,
      async collect() {
        this.reset();
        // A scrape while the database is away still answers, without these.
        for (const r of learning ? await learning().catch(() => []) : []) {
          const v = value(r);
          if (v !== null) this.set({ kind: r.kind, status: r.status }, v);
        }
      },
    });
  }
  new Gauge({
    name: 'markless_queue_depth',
    help: 'Jobs per queue and state (waiting, active, delayed, failed)',
    labelNames: ['queue', 'state'],
    ...reg,
    async collect() {
      this.reset();
      for (const a of admins) {
        // A scrape during a Redis outage still answers, with the depths left out.
        const stats = await a.stats().catch(() => []);
        for (const s of stats)
          for (const st of ['waiting', 'active', 'delayed', 'failed'] as const) this.set({ queue: s.queue, state: st }, s[st]);
      }
    },
  });

  return {
    registry,
    contentType: registry.contentType,
    httpRequest(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    jobHooks: {
      started: (i) => wait.observe({ queue: i.queue, job: i.name }, i.waitMs / 1000),
      finished: (i) => {
        run.observe({ queue: i.queue, job: i.name, outcome: i.outcome }, i.runMs / 1000);
        if (i.outcome === 'failed') failed.inc({ queue: i.queue, job: i.name });
      },
    },
    recognition(model, p) {
      provider.reset();
      provider.set({ provider: p, model: model.name, version: model.version }, 1);
    },
    embedBatch: (n) => batch.observe(n),
    indexSize: (owner, n) => index.set({ owner }, n),
    stage: (stage, seconds) => stages.observe({ stage }, seconds),
    enginePool(waiting, busy) {
      for (const [lane, n] of Object.entries(waiting)) poolWaiting.set({ lane }, n);
      poolBusy.set(busy);
    },
    watchQueue: (a) => void admins.push(a),
    watchLearning: (read) => void (learning = read),
    render: () => registry.metrics(),
  };
}
