/**
 * The engine the job handlers hold: `describe` goes to the engine pool (batched, off this
 * thread's event loop), everything else (identify, versions, calibration) is the base engine's own.
 * Also where the per-stage timings of a job are taken: search and verify around identify, and
 * database and blob store around the ports the handlers use.
 */
import type { Container } from '../../../shared/src/container.js';
import type { Metrics } from '../../../shared/src/observability/metrics.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { GalleryLookup, RecognitionEngine } from '../vision/engine.js';
import type { EnginePool, PoolObserver } from './index.js';

const seconds = (t0: number) => (performance.now() - t0) / 1000;

/**
 * A view of `base` whose `describe` and keypoint verification run in `pool`; identify reports
 * search and verify time. Identify itself (search, ranking, verdict) stays on the caller's thread:
 * it needs the gallery, and what it does besides verification is cheap.
 */
export function pooledEngine(base: RecognitionEngine, pool: EnginePool, metrics: Metrics): RecognitionEngine {
  const self: RecognitionEngine = Object.create(base, {
    describe: { value: (bytes: Uint8Array, opts: Parameters<RecognitionEngine['describe']>[1]) => pool.describe(bytes, opts) },
    verifier: { value: pool.verify },
    identify: {
      value: async (req: Parameters<RecognitionEngine['identify']>[0]) => {
        let outside = 0;
        const timed =
          <A extends unknown[], R>(stage: string, fn: (...a: A) => R | Promise<R>) =>
          async (...a: A): Promise<R> => {
            const t0 = performance.now();
            try {
              return await fn(...a);
            } finally {
              const s = seconds(t0);
              outside += s;
              metrics.stage(stage, s);
            }
          };
        const g = req.gallery;
        const gallery: GalleryLookup = {
          search: timed('search', g.search.bind(g)),
          localFeatures: timed('database', g.localFeatures.bind(g)),
          learned: g.learned,
        };
        const t0 = performance.now();
        try {
          // Called on this view, so the engine's `this.verifier` is the pool's.
          return await base.identify.call(self, { ...req, gallery });
        } finally {
          // What identify spends besides searching and fetching features: keypoint verification and ranking.
          metrics.stage('verify', Math.max(0, seconds(t0) - outside));
        }
      },
    },
  });
  return self;
}

/** Reports each engine batch to the metrics: its size, the time per stage and the pool's backlog. */
export function poolObserver(metrics: Metrics, pool: () => EnginePool | undefined): PoolObserver {
  return {
    batch(size, timings) {
      metrics.embedBatch(size);
      for (const [stage, s] of Object.entries(timings)) metrics.stage(stage, s);
      const p = pool();
      if (p) {
        const st = p.stats();
        metrics.enginePool(st.waiting, st.busy);
      }
    },
  };
}

/** The container as the handlers see it: database and blob store calls timed per stage. */
export function timedContainer(c: Container): Container {
  const m = c.metrics;
  const q = <T extends Queryable>(on: T): T =>
    Object.assign(Object.create(on), {
      query: async (sql: string, params?: readonly unknown[]) => {
        const t0 = performance.now();
        try {
          return await on.query(sql, params);
        } finally {
          m.stage('database', seconds(t0));
        }
      },
    });
  const db = Object.assign(q(c.db), { transaction: <T>(fn: (tx: Queryable) => Promise<T>) => c.db.transaction((tx) => fn(q(tx))) });
  const blobs = Object.assign(Object.create(c.blobs), {
    get: async (key: string) => {
      const t0 = performance.now();
      try {
        return await c.blobs.get(key);
      } finally {
        m.stage('blobs', seconds(t0));
      }
    },
    put: async (...a: Parameters<typeof c.blobs.put>) => {
      const t0 = performance.now();
      try {
        return await c.blobs.put(...a);
      } finally {
        m.stage('blobs', seconds(t0));
      }
    },
  });
  return { ...c, db, blobs };
}
