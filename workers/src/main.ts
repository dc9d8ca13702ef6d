import { loadConfig, ConfigError } from '../../shared/src/config/config.js';
import { createContainer } from '../../shared/src/container.js';
import { createLogger } from '../../shared/src/logger.js';
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
  const shutdown = (signal: string) => {
    container.logger.info({ signal }, 'worker shutting down: finishing jobs in flight');
    container.close().then(
      () => process.exit(0),
      (err) => {
        container.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  const log = createLogger('info');
  if (err instanceof ConfigError) log.fatal(err.message);
  else log.fatal({ err }, 'worker failed to start');
  process.exit(1);
});
