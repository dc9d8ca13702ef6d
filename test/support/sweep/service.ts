/**
 * The service the attack sweep runs against, one per mode. Embedded: the API in this process
 * (PGlite can only be read from inside it). Distributed: the API and the worker each in their own
 * process, as deployed, so neither the sweep's own client work nor a job can stall the API's
 * `/api/health` through an event loop that production does not share.
 */
import { startTestApp, type Mode } from '../app.js';
import { startChildApp } from '../child-app.js';
import { freePort, spawnEntry, until } from '../process.js';
import type { Container } from '../../../shared/src/container.js';

export interface SweepService {
  url: string;
  mode: Mode;
  env: Record<string, string>;
  /** The in-process app's container (embedded only: the way into its PGlite). */
  container?: Container;
  /** The API's process id (embedded: this process). */
  pid?: number;
  /** False once a process of the service has exited (embedded: this process, so always true). */
  alive(): boolean;
  stop(): Promise<void>;
}

export async function startSweepService(mode: Mode, env: Record<string, string>): Promise<SweepService> {
  if (mode === 'embedded') {
    const app = await startTestApp({ mode, env });
    return { url: app.url, mode, env: app.env, container: app.container, pid: process.pid, alive: () => true, stop: () => app.stop() };
  }
  const api = await startChildApp(mode, { ...env, LOG_LEVEL: 'warn' });
  const port = await freePort();
  const worker = spawnEntry('workers/src/main.ts', { ...api.env, METRICS_PORT: String(port) });
  let gone = false;
  void worker.exited.then(() => (gone = true));
  const stop = async () => {
    if (!gone) {
      worker.proc.kill('SIGTERM');
      await worker.exited;
    }
    await api.stop();
  };
  try {
    // Ready once the model is loaded and the queues are consumed (the worker's own readiness probe).
    await until(
      async () => {
        if (gone) throw new Error('exited');
        return (await fetch(`http://127.0.0.1:${port}/ready`)).ok;
      },
      120_000,
      200,
    );
  } catch {
    await stop();
    throw new Error(`the sweep's worker did not become ready:\n${worker.output().slice(-3000)}`);
  }
  return { url: api.url, mode, env: api.env, pid: api.child.proc.pid, alive: () => api.alive() && !gone, stop };
}
