import { z } from 'zod';
import type { Container } from '../../../shared/src/container.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import type { ServiceFacts } from '../discovery/guide.js';
import { discoveryRoutes } from './discovery.route.js';

export const CONTRACT_VERSION = '2026.07.01';

/** Capability names from the live route table: a feature exists exactly when one of its routes does. */
export function featuresOf(routes: RouteDef[]): string[] {
  return [...new Set(routes.filter((r) => r.feature && !r.hidden).map((r) => r.feature!))].sort();
}

/**
 * Health and the discovery documents. They all describe the live table, so they get
 * `allRoutes()`, which resolves once every other route is registered.
 */
export function systemRoutes(c: Container, s: Services, allRoutes: () => RouteDef[]): RouteDef[] {
  const facts: ServiceFacts = {
    version: CONTRACT_VERSION,
    commit: c.config.commit,
    tokenTtlS: c.config.TOKEN_TTL_S,
    jobWaitMs: c.config.JOB_WAIT_MS,
    signupOpen: c.config.SIGNUP_OPEN,
  };
  return [
    defineRoute({
      method: 'get',
      path: '/api/health',
      tag: 'discovery',
      access: 'public',
      feature: 'health',
      summary: 'Liveness, contract version, commit and the features this server has',
      responses: {
        200: {
          description: 'healthy',
          schema: z.object({
            ok: z.literal(true),
            version: z.string(),
            commit: z.string(),
            features: z.array(z.string()),
            auth_open: z.boolean(),
            mode: z.enum(['embedded', 'distributed']),
            recognition: z
              .object({
                model: z.object({ name: z.string(), version: z.string() }),
                provider: z
                  .enum(['cuda', 'cpu'])
                  .describe('ONNX Runtime execution provider; cpu is the fallback when no CUDA provider or GPU is present'),
              })
              .nullable()
              .describe(
                'what the workers loaded, as they published it; null until a worker has started (or when none could load the model)',
              ),
            dependencies: z
              .record(z.string(), z.enum(['up', 'down']))
              .describe(
                'each dependency probed now: database, blobs, and redis in distributed mode; while one is down, job routes answer 503 with Retry-After',
              ),
          }),
        },
      },
      handler: async () => ({
        ok: true,
        version: CONTRACT_VERSION,
        commit: c.config.commit,
        features: featuresOf(allRoutes()),
        auth_open: c.config.SIGNUP_OPEN,
        mode: c.config.MODE,
        // Published by the workers (workers/src/status.ts): the API never loads the model itself.
        recognition: await s.ops.recognition(),
        dependencies: await s.ops.dependencies(),
      }),
    }),
    ...discoveryRoutes(c, facts, allRoutes),
  ];
}
