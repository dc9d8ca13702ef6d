import { z } from 'zod';
import type { Container } from '../../../shared/src/container.js';
import { QUEUES } from '../../../shared/src/domain/queues.js';
import type { Services } from '../services/index.js';
import { defineRoute, raw, type RouteDef } from '../http/route.js';
import { Ok, errorResponse as err } from './schemas.js';

const QueueParam = z.object({
  queue: z
    .string()
    .min(1)
    .max(32)
    .describe(`one of ${QUEUES.join(', ')}`),
});
const QueueStatsOut = z.object({
  queue: z.enum(QUEUES),
  waiting: z.number().int(),
  active: z.number().int(),
  delayed: z.number().int().describe('retries waiting for their backoff, and jobs deferred so other accounts get a turn'),
  failed: z.number().int(),
  completed: z.number().int(),
  paused: z.boolean(),
  concurrency: z.number().int().describe('jobs one worker process of this pool runs at once'),
});
const QueuesOut = Ok.extend({ queues: z.array(QueueStatsOut) });
const CountOut = Ok.extend({ queue: z.string(), count: z.number().int() });
const denied = { 401: err('not signed in'), 403: err('signed in, but not an administrator'), 404: err('no queue by that name') };
const adminQueue = { tag: 'admin', access: 'admin', feature: 'admin_queues', params: QueueParam } as const;

/** `GET /metrics` (Prometheus text) and the operator's queue routes. */
export function opsRoutes(c: Container, s: Services): RouteDef[] {
  const routes: RouteDef[] = [
    defineRoute({
      method: 'get',
      path: '/api/admin/queues',
      tag: 'admin',
      access: 'admin',
      feature: 'admin_queues',
      summary: 'Every job queue with its depths, whether it is paused, and its pool concurrency',
      description:
        'One queue per kind of job (identify, enrol, video, batch, reindex, anchor); worker pools serve the queues named in WORKER_QUEUES.',
      responses: { 200: { description: 'the queues', schema: QueuesOut }, 401: denied[401], 403: denied[403] },
      handler: async () => ({ ok: true, queues: await s.ops.queues() }),
    }),
    defineRoute({
      ...adminQueue,
      method: 'post',
      path: '/api/admin/queues/{queue}/pause',
      summary: 'Pause a queue: no worker takes its jobs until resumed (jobs in flight finish)',
      responses: { 200: { description: 'paused', schema: Ok }, ...denied },
      handler: async ({ params }) => (await s.ops.pause(params.queue), { ok: true }),
    }),
    defineRoute({
      ...adminQueue,
      method: 'post',
      path: '/api/admin/queues/{queue}/resume',
      summary: 'Resume a paused queue',
      responses: { 200: { description: 'resumed', schema: Ok }, ...denied },
      handler: async ({ params }) => (await s.ops.resume(params.queue), { ok: true }),
    }),
    defineRoute({
      ...adminQueue,
      method: 'post',
      path: '/api/admin/queues/{queue}/failed/retry',
      summary: 'Put every failed job of a queue back to waiting',
      responses: { 200: { description: 'how many were retried', schema: CountOut }, ...denied },
      handler: async ({ params }) => ({ ok: true, queue: params.queue, count: await s.ops.retryFailed(params.queue) }),
    }),
    defineRoute({
      ...adminQueue,
      method: 'delete',
      path: '/api/admin/queues/{queue}/failed',
      summary: 'Remove every failed job of a queue',
      responses: { 200: { description: 'how many were removed', schema: CountOut }, ...denied },
      handler: async ({ params }) => ({ ok: true, queue: params.queue, count: await s.ops.removeFailed(params.queue) }),
    }),
    defineRoute({
      ...adminQueue,
      method: 'put',
      path: '/api/admin/queues/{queue}/concurrency',
      summary: 'Change how many jobs of this queue each worker process runs at once',
      description:
        'Reaches running workers within a few seconds (BullMQ workers apply a raise at their next job boundary) and outlives their restarts.',
      body: z.object({ concurrency: z.number().int().min(1).max(256) }),
      responses: {
        200: { description: 'changed', schema: Ok.extend({ queue: z.string(), concurrency: z.number().int() }) },
        ...denied,
        422: err('bad concurrency'),
      },
      handler: async ({ params, body }) => {
        await s.ops.setConcurrency(params.queue, body.concurrency);
        return { ok: true, queue: params.queue, concurrency: body.concurrency };
      },
    }),
  ];
  if (c.config.METRICS_ACCESS !== 'off') {
    routes.push(
      defineRoute({
        method: 'get',
        path: '/metrics',
        tag: 'admin',
        access: c.config.METRICS_ACCESS,
        feature: 'metrics',
        summary:
          'Prometheus metrics of this process (METRICS_ACCESS: admin token or public; METRICS_PORT serves them without auth on a separate port)',
        responses: {
          200: { description: 'Prometheus text exposition format', contentType: 'text/plain' },
          401: denied[401],
          403: denied[403],
        },
        handler: async () => raw(200, await s.ops.metrics(), s.ops.metricsContentType, { 'Cache-Control': 'no-store' }),
      }),
    );
  }
  return routes;
}
