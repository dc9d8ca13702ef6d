import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Container } from '../../shared/src/container.js';
import { workerStatusRepo } from '../../shared/src/repos/worker-status.repo.js';
import type { RecognitionEngine } from './vision/engine.js';

/** What a worker process loaded, as /api/health shows it. */
export interface RecognitionStatus {
  model: { name: string; version: string };
  provider: 'cuda' | 'cpu';
}

const HEARTBEAT_MS = 30_000;

/**
 * Publish what this process loaded (model, ONNX execution provider, queues served) as a row of
 * `worker_status`, refreshed every 30 s. The API reads the row instead of loading the model
 * itself, so API pods need neither the model nor a GPU. Also sets the provider metric.
 */
export async function publishWorkerStatus(c: Container, engine: RecognitionEngine): Promise<() => void> {
  const id = `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const recognition: RecognitionStatus = { model: engine.model, provider: engine.provider };
  c.metrics.recognition(engine.model, engine.provider);
  const beat = () => workerStatusRepo.beat(c.db, id, c.config.workerQueues, recognition);
  await beat();
  const timer = setInterval(() => void beat().catch((err) => c.logger.warn({ err }, 'worker status heartbeat failed')), HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
