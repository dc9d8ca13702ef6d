import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/*
 * Tiers, fastest first: scripts/test-tiers.mjs runs them one after another (`--project <name>`)
 * and stops at the first that fails; plain `vitest run` still runs every file.
 *   unit:    the source tree's own specs, in process;
 *   medium:  source specs on the real PostgreSQL, Redis, S3, ONNX engine, ffmpeg or child processes;
 *   e2e:     the service booted and driven over HTTP;
 *   browser: the web app in Chromium;
 *   real:    the real datasets end to end.
 * A file in no other tier's list is in `unit` (outside test/) or `e2e` (under test/).
 */
const MEDIUM = [
  'shared/src/adapters/**/*.spec.ts',
  'shared/src/repos/**/*.spec.ts',
  'shared/src/evidence/verify-cli/**/*.spec.ts',
  'workers/src/engine-pool/**/*.spec.ts',
  'workers/src/learn/**/*.spec.ts',
  'workers/src/media/**/*.spec.ts',
  'workers/src/survey/frame-stream.spec.ts',
  'workers/src/vision/embed.spec.ts',
  'workers/src/vision/engine.spec.ts',
  'workers/src/vision/frames.spec.ts',
  'workers/src/vision/kind-calibration.spec.ts',
  'workers/src/vision/learned-order.spec.ts',
  'workers/src/vision/match-lines.spec.ts',
  'workers/src/vision/registry.spec.ts',
  'workers/src/recognition/serving-order.spec.ts',
];
/** The e2e files that drive Chromium: those importing playwright-core. */
const E2E = 'test/e2e';
const BROWSER = readdirSync(path.join(import.meta.dirname, E2E))
  .filter((f) => f.endsWith('.spec.ts') && readFileSync(path.join(import.meta.dirname, E2E, f), 'utf8').includes("from 'playwright-core'"))
  .map((f) => `${E2E}/${f}`);

export default defineConfig({
  test: {
    exclude: ['node_modules/**', 'data/**'],
    // Suites start real servers (PGlite, S3, Redis queues); two cores cannot run many at once.
    pool: 'forks',
    maxWorkers: 2,
    // Each fork runs its files one after another in one module graph instead of importing the
    // service's graph again for every file (benchmarks/results/suite-isolate-2026-11-29.md). A file
    // must therefore leave process-wide state as it found it: environment variables it sets are
    // restored, servers it starts are stopped.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['**/*.spec.ts'], exclude: ['node_modules/**', 'data/**', 'test/**', ...MEDIUM] } },
      { extends: true, test: { name: 'medium', include: MEDIUM } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.spec.ts'], exclude: ['node_modules/**', 'test/real/**', ...BROWSER] } },
      { extends: true, test: { name: 'browser', include: BROWSER } },
      { extends: true, test: { name: 'real', include: ['test/real/**/*.spec.ts'] } },
    ],
  },
});
