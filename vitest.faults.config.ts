import { defineConfig } from 'vitest/config';

// Fault tests (npm run test:faults): they start and stop their own Redis, PostgreSQL and S3
// and take minutes, so they are kept out of the default suite (`*.fault.ts`, not `*.spec.ts`).
export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
