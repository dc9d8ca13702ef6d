import { loadConfig, ConfigError } from '../../shared/src/config/config.js';
import { createContainer } from '../../shared/src/container.js';
import { createLogger } from '../../shared/src/logger.js';
import { exitOnSignals } from '../../shared/src/lifecycle.js';
import { createHandlers, scheduleReindexIfNeeded } from './handlers/index.js';

/**
 * A distributed-mode worker: takes jobs from BullMQ and runs the catalogue's handlers. On SIGTERM
 * it stops taking jobs, finishes the ones in flight, then exits.
 */
async function main() {
  const config = loadConfig();
  if (config.MODE !== 'distributed') throw new ConfigError(['MODE: the worker runs in distributed mode only (embedded mode runs jobs inside `npm start`)']);
  const container = await createContainer(config);
  await container.queue.startWorker(await createHandlers(container));
  await scheduleReindexIfNeeded(container);
  container.logger.info({ queue: config.QUEUE_NAME, concurrency: config.WORKER_CONCURRENCY }, 'worker ready');
  exitOnSignals(container.logger, 'worker', () => container.close());
}

main().catch((err) => {
  const log = createLogger('info');
  if (err instanceof ConfigError) log.fatal(err.message);
  else log.fatal({ err }, 'worker failed to start');
  process.exit(1);
});
