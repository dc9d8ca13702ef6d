/**
 * Where a test engine can take the place of the real one, and the only place: the job handlers
 * (workers/src/handlers/index.ts) ask here first. MARKLESS_TEST_ENGINE=deterministic, which the
 * configuration accepts under vitest only, gives the deterministic engine of
 * ./testing/deterministic-engine.ts; anything else gives null, and the real engine serves.
 */
import type { Config } from '../../../shared/src/config/config.js';
import type { RecognitionEngine } from './engine.js';

let deterministic: Promise<RecognitionEngine> | null = null;

/** The test engine the configuration names (one per process), or null for the real engine. */
export function testEngine(config: Pick<Config, 'MARKLESS_TEST_ENGINE'>): Promise<RecognitionEngine> | null {
  if (config.MARKLESS_TEST_ENGINE !== 'deterministic') return null;
  deterministic ??= import('./testing/deterministic-engine.js').then((m) => m.createDeterministicEngine());
  return deterministic;
}
