/**
 * The engine pool: where photos are described, off the event loop of whoever asks.
 *
 * Interface (the one other work builds on; keep it stable):
 * ```ts
 * const pool = createEnginePool({ size: 2, batchSize: 8, lingerMs: 4, modelDir: '' });
 * const d = await pool.describe(bytes, { kind: 'fruit' });      // one photo → Descriptor (or the engine's error)
 * const ds = await pool.describeMany([{ bytes, opts }, ...]);   // several → (Descriptor | Error)[]
 * const r = await pool.runJob('warm', { modelDir: '' });        // a named CPU task of task.ts (lane-aware too)
 * const v = await pool.verify(query, gallery, ids, settings);   // keypoint verification (engine's verifier)
 * const d = await pool.detect(decodedFrame, { classes });        // YOLOX on one frame (survey videos)
 * const f = await pool.detectLooks(frame, { classes }, views);    // the survey's looks at a frame, fused
 * const H = await pool.motion(greyPrev, greyCur, boxes);          // camera motion between two frames
 * await withLane('bulk', () => pool.describe(bytes, opts));     // bulk work yields to interactive
 * pool.stats();                                                 // waiting per lane, busy threads, batches
 * await pool.close();
 * ```
 * - `size` piscina threads, each creating its ONNX sessions once and reusing them; with
 *   MARKLESS_ORT_THREADS intra-op threads each, `size × MARKLESS_ORT_THREADS ≤ cores` by default
 *   (`poolSettings`), so the pool never oversubscribes the machine.
 * - Describes waiting for a thread are grouped into one task of at most `batchSize` photos (one
 *   `session.run` over all of them per model). A thread that falls free takes the interactive
 *   lane's photos first; a lone bulk photo lingers `lingerMs` for company, an interactive one never.
 * - Named jobs (keypoint verification above all) queue in the same lanes, ahead of the photos of
 *   their lane: a job is the rest of work already started, so finishing it first keeps latency low.
 * - Results are the same descriptors a direct `engine.describe` gives (engine-pool.spec.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';
import { Piscina } from 'piscina';
import type { Descriptor, DescribeOptions, LocalVerifier, StageTimings } from '../vision/engine.js';
import type { Detection, DetectOptions } from '../vision/detector.js';
import type { DecodedImage } from '../vision/intake.js';
import type { LocalScore } from '../vision/local-features.js';
import type { ViewOptions } from '../survey/views.js';
import type { GreyFrame } from '../survey/motion.js';
import type { Mat } from '../survey/kalman.js';
import type { Box } from '../vision/boxes.js';
import type { DescribeOut, DetectLooksPayload, DetectPayload, MotionPayload, TaskIn, VerifyPayload } from './task.js';
import { fromWire } from './wire.js';

export type Lane = 'interactive' | 'bulk';
const lanes = new AsyncLocalStorage<Lane>();
/** Run `fn` with its describes in `lane` (job hosts set it from the job's queue). */
export const withLane = <T>(lane: Lane, fn: () => T): T => lanes.run(lane, fn);
export const currentLane = (): Lane => lanes.getStore() ?? 'interactive';

export interface PoolSettings {
  /** Threads (ENGINE_POOL_SIZE; default: the cores). */
  size: number;
  /** Most photos in one batch (ENGINE_BATCH_SIZE; default 8 on CPU). */
  batchSize: number;
  /** How long a bulk photo waits for others before running alone (ENGINE_LINGER_MS; default 4). */
  lingerMs: number;
  /** ONNX Runtime intra-op threads per pool thread (MARKLESS_ORT_THREADS; default cores / size, at least 1). */
  ortThreads: number;
}

/** Pool settings from the environment, with the documented defaults. */
export function poolSettings(env: NodeJS.ProcessEnv = process.env, cores = os.availableParallelism()): PoolSettings {
  const num = (v: string | undefined, d: number, min: number) => {
    const n = v === undefined || v === '' ? d : Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`bad engine pool setting "${v}" (an integer of at least ${min})`);
    return n;
  };
  const size = num(env.ENGINE_POOL_SIZE, cores, 1);
  return {
    size,
    batchSize: num(env.ENGINE_BATCH_SIZE, 8, 1),
    lingerMs: num(env.ENGINE_LINGER_MS, 4, 0),
    ortThreads: num(env.MARKLESS_ORT_THREADS, Math.max(1, Math.floor(cores / size)), 1),
  };
}

export interface PoolStats {
  waiting: Record<Lane, number>;
  busy: number;
  size: number;
  batches: number;
  photos: number;
}

export interface EnginePool {
  describe(bytes: Uint8Array, opts: DescribeOptions): Promise<Descriptor>;
  /** The engine's `verifier`, run on a pool thread in the caller's lane. */
  verify: LocalVerifier;
  /** Objects in one decoded frame, on a pool thread in the caller's lane. */
  detect(img: DecodedImage, opts: DetectOptions): Promise<Detection[]>;
  /** Every look at one frame (survey/views.ts) fused, on one pool thread. */
  detectLooks(img: DecodedImage, opts: DetectOptions, views: ViewOptions): Promise<Detection[]>;
  /** Camera motion between two grey frames (survey/motion.ts), on a pool thread. */
  motion(prev: GreyFrame, cur: GreyFrame, boxes: readonly Box[]): Promise<Mat>;
  describeMany(items: readonly { bytes: Uint8Array; opts: DescribeOptions }[]): Promise<(Descriptor | Error)[]>;
  runJob<T = unknown>(name: string, payload: unknown): Promise<T>;
  stats(): PoolStats;
  readonly settings: PoolSettings;
  close(): Promise<void>;
}

export interface PoolObserver {
  /** One batch ran: its size and the seconds per stage summed over its photos. */
  batch?(size: number, timings: StageTimings): void;
}

interface PendingJob {
  name: string;
  payload: unknown;
  resolve: (r: unknown) => void;
  reject: (e: unknown) => void;
}

interface Waiting {
  bytes: Uint8Array;
  opts: DescribeOptions;
  since: number;
  resolve: (r: Descriptor | Error) => void;
}

let sharedPool: EnginePool | null = null;
/**
 * Job hosts sharing one engine pool (embedded, JOB_HOSTS > 1; shared.ts): from now on
 * createEnginePool in this thread answers with `pool`, the engine thread's pool behind a port.
 */
export function useSharedEnginePool(pool: EnginePool | null): void {
  sharedPool = pool;
}

export function createEnginePool(
  o: Partial<PoolSettings> & {
    modelDir?: string;
    observer?: PoolObserver;
    /** Start the threads on the first task instead of now (the test suite's deterministic engine never sends one). */
    lazy?: boolean;
  } = {},
): EnginePool {
  // Given values win over the environment; ONNX threads follow the pool size unless set.
  const given = Object.fromEntries(
    Object.entries(o).filter(([k, v]) => v !== undefined && k !== 'modelDir' && k !== 'observer' && k !== 'lazy'),
  );
  const settings = poolSettings({
    ...process.env,
    ...Object.fromEntries(
      Object.entries({
        ENGINE_POOL_SIZE: given.size,
        ENGINE_BATCH_SIZE: given.batchSize,
        ENGINE_LINGER_MS: given.lingerMs,
        MARKLESS_ORT_THREADS: given.ortThreads,
      })
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    ),
  });
  if (sharedPool) return sharedPool;
  let threads: Piscina | null = null;
  const piscina = (): Piscina =>
    (threads ??= new Piscina({
      filename: new URL('./boot.mjs', import.meta.url).href,
      minThreads: settings.size,
      maxThreads: settings.size,
      // Sessions live as long as the pool; a thread is never retired for idling.
      idleTimeout: Number.MAX_SAFE_INTEGER,
      env: { ...process.env, MARKLESS_ORT_THREADS: String(settings.ortThreads) },
    }));
  if (!o.lazy) piscina();
  const queue: Record<Lane, Waiting[]> = { interactive: [], bulk: [] };
  const jobs: Record<Lane, PendingJob[]> = { interactive: [], bulk: [] };
  let busy = 0;
  let batches = 0;
  let photos = 0;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  function take(): Waiting[] {
    const out = queue.interactive.splice(0, settings.batchSize);
    if (out.length < settings.batchSize) out.push(...queue.bulk.splice(0, settings.batchSize - out.length));
    return out;
  }

  function pump(): void {
    while (
      !closed &&
      busy < settings.size &&
      (queue.interactive.length || queue.bulk.length || jobs.interactive.length || jobs.bulk.length)
    ) {
      if (jobs.interactive.length) {
        void dispatchJob(jobs.interactive.shift()!);
        continue;
      }
      if (!queue.interactive.length && jobs.bulk.length) {
        void dispatchJob(jobs.bulk.shift()!);
        continue;
      }
      // Bulk photos alone wait a moment for company, so a steady stream runs in batches.
      if (!queue.interactive.length && queue.bulk.length < settings.batchSize) {
        const due = queue.bulk[0]!.since + settings.lingerMs - Date.now();
        if (due > 0) {
          timer ??= setTimeout(() => {
            timer = null;
            pump();
          }, due);
          return;
        }
      }
      void dispatch(take());
    }
  }

  async function dispatch(batch: Waiting[]): Promise<void> {
    busy++;
    try {
      const task: TaskIn = { op: 'describe', modelDir: o.modelDir ?? '', items: batch.map((w) => ({ bytes: w.bytes, opts: w.opts })) };
      const out = (await piscina().run(task)) as DescribeOut;
      batches++;
      photos += batch.length;
      o.observer?.batch?.(batch.length, out.timings);
      out.results.forEach((r, i) => batch[i]!.resolve(r.ok ? reviveDescriptor(r.d as Descriptor) : fromWire(r.error)));
    } catch (err) {
      for (const w of batch) w.resolve(err as Error);
    } finally {
      busy--;
      pump();
    }
  }

  async function dispatchJob(j: PendingJob): Promise<void> {
    busy++;
    try {
      j.resolve(await piscina().run({ op: 'job', name: j.name, payload: j.payload } satisfies TaskIn));
    } catch (err) {
      j.reject(err);
    } finally {
      busy--;
      pump();
    }
  }

  function runJob<T>(name: string, payload: unknown): Promise<T> {
    if (closed) return Promise.reject(new Error('the engine pool is closed'));
    return new Promise<T>((resolve, reject) => {
      jobs[currentLane()].push({ name, payload, resolve: resolve as (r: unknown) => void, reject });
      pump();
    });
  }

  function enqueue(bytes: Uint8Array, opts: DescribeOptions): Promise<Descriptor | Error> {
    if (closed) return Promise.resolve(new Error('the engine pool is closed'));
    return new Promise((resolve) => {
      queue[currentLane()].push({ bytes, opts, since: Date.now(), resolve });
      pump();
    });
  }

  return {
    settings,
    async describe(bytes, opts) {
      const r = await enqueue(bytes, opts);
      if (r instanceof Error) throw r;
      return r;
    },
    describeMany: (items) => Promise.all(items.map((i) => enqueue(i.bytes, i.opts))),
    runJob,
    async verify(query, gallery, ids, s) {
      const payload: VerifyPayload = {
        query,
        gallery: ids.flatMap((id) => (gallery.has(id) ? [[id, gallery.get(id)!] as [string, Uint8Array]] : [])),
        ids,
        settings: s,
      };
      return new Map(await runJob<[string, LocalScore][]>('verify', payload));
    },
    detect: (img, opts) =>
      runJob<Detection[]>('detect', { rgb: img.rgb, width: img.width, height: img.height, opts } satisfies DetectPayload),
    detectLooks: (img, opts, views) =>
      runJob<Detection[]>('detectLooks', { rgb: img.rgb, width: img.width, height: img.height, opts, views } satisfies DetectLooksPayload),
    motion: (prev, cur, boxes) => runJob<Mat>('motion', { prev, cur, boxes: boxes.map((b) => ({ ...b })) } satisfies MotionPayload),
    stats: () => ({
      waiting: { interactive: queue.interactive.length + jobs.interactive.length, bulk: queue.bulk.length + jobs.bulk.length },
      busy,
      size: settings.size,
      batches,
      photos,
    }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of [...queue.interactive, ...queue.bulk]) w.resolve(new Error('the engine pool is closed'));
      for (const j of [...jobs.interactive, ...jobs.bulk]) j.reject(new Error('the engine pool is closed'));
      queue.interactive = [];
      queue.bulk = [];
      jobs.interactive = [];
      jobs.bulk = [];
      await threads?.destroy();
    },
  };
}

/** Structured clone turns Buffers into Uint8Arrays; the preview's pixels are read as a Buffer. */
export function reviveDescriptor(d: Descriptor): Descriptor {
  if (d.preview && !Buffer.isBuffer(d.preview.rgb)) {
    const u = d.preview.rgb as Uint8Array;
    d.preview = { ...d.preview, rgb: Buffer.from(u.buffer, u.byteOffset, u.byteLength) };
  }
  return d;
}
