import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, reply, type Reply, type RouteDef } from '../http/route.js';
import type { JobOutcome } from '../services/jobs.service.js';
import { Ok, errorResponse } from './schemas.js';

export const JobOut = Ok.extend({
  job_id: z.string(),
  name: z.string(),
  status: z.enum(['waiting', 'active', 'completed', 'failed']),
  attempts: z.number().int(),
  created_at: z.string(),
  finished_at: z.string().optional(),
  result: z.record(z.string(), z.unknown()).optional().describe('the same body the original route would have answered'),
  error: z.object({ code: z.string(), status: z.number().int() }).optional(),
  poll: z.string().describe('where to ask again'),
});

/** The 202 every job-backed route documents: the job outlived JOB_WAIT_MS and is still running. */
export const accepted = {
  description:
    'Accepted: the job is still running after JOB_WAIT_MS (default 30 s). Poll `GET /api/jobs/{job_id}` ' +
    "(also given in the Location header) until `status` is `completed` (then `result` holds this route's answer) or `failed`.",
  schema: JobOut,
};

/** Answer a job-backed route: the result when done, else 202 with the job to poll. */
export function answerJob(outcome: JobOutcome, render: (result: Record<string, unknown>) => unknown): unknown | Reply {
  if (outcome.done) return render(outcome.result);
  return reply(202, { ok: true, ...outcome.job }, { Location: outcome.job.poll });
}

export function jobRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/jobs/{id}',
      tag: 'jobs',
      access: 'user',
      feature: 'jobs',
      summary: 'Status and result of a job you started',
      params: z.object({ id: z.string().min(1).max(200) }),
      responses: {
        200: { description: 'the job', schema: JobOut },
        401: errorResponse('not signed in'),
        404: errorResponse('no such job, or not yours'),
      },
      handler: async ({ params, caller }) => ({ ok: true, ...(await s.jobs.get(params.id, caller!.account_id)) }),
    }),
  ];
}
