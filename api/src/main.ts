import type { Server } from 'node:http';
import { loadConfig, ConfigError } from '../../shared/src/config/config.js';
import { createContainer, type Container } from '../../shared/src/container.js';
import { createLogger } from '../../shared/src/logger.js';
import { exitOnSignals } from '../../shared/src/lifecycle.js';
import { startJobHost } from '../../shared/src/jobs/thread-host.js';
import { createApp } from './app.js';
import { gracefulClose } from './http/graceful-close.js';
import { createServices } from './services/index.js';
import { startMetricsServer } from '../../shared/src/observability/metrics-server.js';
import { startOrphanSweep } from './services/orphan-sweep.js';
import { startCalibrationPoolSchedule } from './services/calibration-pool.service.js';
import { applyConfiguredAdmins } from '../../shared/src/access/admins.js';

/**
 * Start the API. Embedded mode (the default) also runs the job handlers, in JOB_HOSTS threads of
 * their own, each with its engine pool (shared/src/jobs/thread-host.ts), never on this event loop; distributed
 * mode only enqueues, and `npm run worker` processes run the jobs. This file imports no worker code.
 */
export async function start(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ server: Server; container: Container; stop: () => Promise<void> }> {
  const config = loadConfig(env);
  const container = await createContainer(config);
  await applyConfiguredAdmins(container.db, config.ADMIN_USERS, container.logger);
  if (config.MODE === 'embedded') {
    const host = await startJobHost(container, env);
    container.onClose(() => host.close());
    await container.queue.startWorker(host.handlers);
  }
  const app = createApp(container, createServices(container));
  const stopSweep = startOrphanSweep(container);
  const stopPooling = startCalibrationPoolSchedule(container);
  const server = app.koa.listen(config.PORT, config.HOST);
  // Keep idle sockets longer than common clients and proxies do (60 s): with Node's 5 s
  // keep-alive a client reusing an idle socket can meet the server closing it (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const closeServer = gracefulClose(server);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  let stopping: Promise<void> | null = null;
  // Optional unauthenticated /metrics and /ready for Prometheus and probes, on its own port.
  const probe =
    config.METRICS_PORT !== undefined
      ? await startMetricsServer(config.METRICS_PORT, config.HOST, container.metrics, () => !stopping)
      : null;
  container.logger.info({ port: config.PORT, mode: config.MODE, metricsPort: config.METRICS_PORT }, 'listening');
  const stop = () =>
    (stopping ??= (async () => {
      // Stop taking requests, let jobs in flight finish, then close the database.
      await stopSweep();
      stopPooling();
      // Requests in flight may still be waiting on their job (JOB_WAIT_MS); then what is left closes.
      await closeServer(config.JOB_WAIT_MS + 5_000);
      probe?.close();
      await container.close();
    })());
  return { server, container, stop };
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  start()
    .then(({ container, stop, server }) => {
      exitOnSignals(container.logger, 'api', async () => {
        server.closeIdleConnections();
        await stop();
      });
    })
    .catch((err) => {
      const log = createLogger('info');
      if (err instanceof ConfigError) log.fatal(err.message);
      else log.fatal({ err }, 'start failed');
      process.exit(1);
    });
}
