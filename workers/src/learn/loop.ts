/**
 * The learning loop's queueing and run records live in `shared/src/repos/learning-runs.ts`, so the
 * API (labels, `GET /api/learning/{kind}`) can read and queue them without importing worker code.
 */
export * from '../../../shared/src/repos/learning-runs.js';
