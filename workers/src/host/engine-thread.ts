/**
 * The engine thread of embedded mode when there are several job hosts (started by
 * shared/src/jobs/thread-host.ts before them): it holds the one engine pool (ENGINE_POOL_SIZE
 * piscina threads, their ONNX sessions) and answers every host's calls on it, each host through
 * a MessagePort of its own (engine-pool/shared.ts). It runs no job: it only hands photos to the
 * pool's threads, so no job's own work ever holds another host's describes.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../../../shared/src/config/config.js';
import { createContainer } from '../../../shared/src/container.js';
import { createLogger } from '../../../shared/src/logger.js';
import { createEnginePool } from '../engine-pool/index.js';
import { poolObserver } from '../engine-pool/pooled-engine.js';
import { serveEnginePool } from '../engine-pool/shared.js';
import { servingDir } from '../recognition/model-lifecycle.js';
import { testEngine } from '../vision/choose-engine.js';
import { env, onMain, post, remoteDb, remoteMetrics, remoteQueue } from './remote.js';

async function main() {
  const config = loadConfig(env);
  const logger = createLogger(config.LOG_LEVEL).child({ engine: true });
  const c = await createContainer(config, {
    logger,
    queue: remoteQueue,
    metrics: remoteMetrics,
    ...(config.DATABASE_URL ? {} : { db: remoteDb }),
  });
  // The same pool a lone host builds for itself (handlers/index.ts), with the whole ENGINE_POOL_SIZE.
  const test = testEngine(config);
  const pool = createEnginePool({
    size: config.ENGINE_POOL_SIZE,
    batchSize: config.ENGINE_BATCH_SIZE,
    lingerMs: config.ENGINE_LINGER_MS,
    modelDir: (await servingDir(c)) ?? '',
    observer: poolObserver(c.metrics, () => pool),
    lazy: test !== null,
  });
  const served: Record<number, number> = {};
  onMain((m) => {
    if (m.t === 'attach') {
      serveEnginePool(pool, m.port, () => {
        served[m.host] = (served[m.host] ?? 0) + 1;
        post({ t: 'served', host: m.host, calls: served[m.host]! });
        killIfAsked();
      });
    } else if (m.t === 'close') {
      void pool
        .close()
        .then(() => c.close())
        .finally(() => process.exit(0));
    }
  });
  post({ t: 'ready', engine: pool.settings });
}

/**
 * Test hook (MARKLESS_TEST_KILL_ENGINE_WHEN=<file>): on the first call after the file exists (and
 * once: `<file>.killed` marks it), the engine thread ends at once, that call unanswered: the hosts'
 * calls in flight fail (the queue retries their jobs), and the main thread starts a new engine
 * thread and gives every host a port to it.
 */
function killIfAsked(): void {
  const file = env.MARKLESS_TEST_KILL_ENGINE_WHEN;
  if (!file || !existsSync(file) || existsSync(`${file}.killed`)) return;
  writeFileSync(`${file}.killed`, '');
  process.exit(1);
}

main().catch((err) => post({ t: 'failed', error: String((err as Error)?.stack ?? err) }));
