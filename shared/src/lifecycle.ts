import type { Logger } from './logger.js';

/**
 * On SIGTERM or SIGINT, run `stop` once — it stops taking work and lets jobs in flight finish —
 * then exit 0, or 1 when stopping failed. Used by the API and by workers alike.
 */
export function exitOnSignals(logger: Logger, what: string, stop: () => Promise<void>): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, `${what} shutting down: finishing jobs in flight`);
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
