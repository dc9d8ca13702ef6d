import type { Server } from 'node:http';
import { loadConfig, ConfigError } from '../../shared/src/config/config.js';
import { createContainer } from '../../shared/src/container.js';
import { createLogger } from '../../shared/src/logger.js';
import { exitOnSignals } from '../../shared/src/lifecycle.js';
import { startMetricsServer } from '../../shared/src/observability/metrics-server.js';
import { createHandlers, scheduleReindexIfNeeded } from './handlers/index.js';

/**
 * A distributed-mode worker: takes jobs from the BullMQ queues named in WORKER_QUEUES and runs
 * the catalogue's handlers. With METRICS_PORT set it serves /metrics and /ready (ready once the
 * model is loaded and the queues are consumed: the Kubernetes readiness probe). On SIGTERM it
 * stops taking jobs, finishes the ones in flight, then exits.
 */
async function main() {
  const config = loadConfig();
  if (config.MODE !== 'distributed')
    throw new ConfigError(['MODE: the worker runs in distributed mode only (embedded mode runs jobs inside `npm start`)']);
  let ready = false;
  let probe: Server | null = null;
  const container = await createContainer(config);
  if (config.METRICS_PORT !== undefined) probe = await startMetricsServer(config.METRICS_PORT, config.HOST, container.metrics, () => ready);
  await container.queue.startWorker(await createHandlers(container));
  await scheduleReindexIfNeeded(container);
  ready = true;
  container.logger.info(
    { queues: config.workerQueues, concurrency: config.queueConcurrency, metricsPort: config.METRICS_PORT },
    'worker ready',
  );
  exitOnSignals(container.logger, 'worker', async () => {
    ready = false;
    await container.close();
    probe?.close();
  });
}

main().catch((err) => {
  const log = createLogger('info');
  if (err instanceof ConfigError) log.fatal(err.message);
  else log.fatal({ err }, 'worker failed to start');
  process.exit(1);
});
