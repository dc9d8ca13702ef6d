import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse } from './schemas.js';

const VerdictForm = z.object({
  query_id: z.string().uuid().describe('the query_id an identify answer returned'),
  verdict: z.enum(['correct', 'wrong', 'other', 'unknown_ok']).describe(
    'correct: top-1 was right; wrong: it was not (send correct_id if known); other: another individual (correct_id) or an unknown one; unknown_ok: not enrolled and the answer rightly said so',
  ),
  correct_id: z.string().uuid().optional().describe('the right individual; kept only when it is yours, otherwise dropped silently'),
});

const VerdictOut = Ok.extend({ correct_id: z.string().uuid().nullable().describe('null when none was sent or it was not yours') });

/** One label route; each kind has its own path (spec: /api/identify_verdict, /api/fruit/identify_verdict). */
export function verdictRoute(s: Services, at: { path: string; tag: string; what: string }): RouteDef {
  return defineRoute({
    method: 'post', path: at.path, tag: at.tag, access: 'user', feature: 'identify-verdict',
    summary: `Send a ground-truth label for a ${at.what} identify query (feeds calibration re-fits)`,
    bodyType: 'form', body: VerdictForm,
    responses: {
      200: { description: 'label stored', schema: VerdictOut },
      401: errorResponse('not signed in'),
      404: errorResponse('no such query, or not yours'),
      422: errorResponse('missing field or wrong type'),
    },
    handler: async ({ body, caller }) => ({ ok: true, ...(await s.verdicts.record(caller!, body)) }),
  });
}

export function verdictRoutes(s: Services): RouteDef[] {
  return [verdictRoute(s, { path: '/api/identify_verdict', tag: 'trees', what: 'tree' })];
}
