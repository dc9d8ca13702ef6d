import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse } from './schemas.js';
import { animalDid, animalRefToId } from '../../../shared/src/domain/animal-did.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';

const VerdictForm = z.object({
  query_id: z.string().uuid().describe('the query_id an identify answer returned'),
  verdict: z
    .enum(['correct', 'wrong', 'other', 'unknown_ok'])
    .describe(
      'correct: top-1 was right; wrong: it was not (send correct_id if known); other: another individual (correct_id) or an unknown one; unknown_ok: not enrolled and the answer rightly said so',
    ),
  correct_id: z.string().uuid().optional().describe('the right individual; kept only when it is yours, otherwise dropped silently'),
});

const VerdictOut = Ok.extend({ correct_id: z.string().uuid().nullable().describe('null when none was sent or it was not yours') });

/** Animals name the right individual by `correct_did` (an animal_did or its bare uuid). */
const AnimalVerdictForm = VerdictForm.omit({ correct_id: true }).extend({
  correct_did: z
    .string()
    .max(200)
    .optional()
    .describe('the right animal (animal_did or uuid); kept only when it is yours, otherwise dropped silently'),
});
const AnimalVerdictOut = Ok.extend({ correct_did: z.string().nullable().describe('null when none was sent or it was not yours') });

/**
 * One label route; each kind has its own path (spec: /api/identify_verdict, /api/fruit/identify_verdict,
 * /api/animal/identify_verdict). With `kind`, only that kind's queries can be labelled there.
 */
export function verdictRoute(s: Services, at: { path: string; tag: string; what: string; kind?: Kind }): RouteDef {
  const base = {
    method: 'post' as const,
    path: at.path,
    tag: at.tag,
    access: 'user' as const,
    feature: 'identify-verdict',
    summary: `Send a ground-truth label for a ${at.what} identify query (feeds calibration re-fits)`,
    bodyType: 'form' as const,
  };
  const errors = {
    401: errorResponse('not signed in'),
    404: errorResponse('no such query, or not yours'),
    422: errorResponse('missing field or wrong type'),
  };
  if (at.kind === 'animal') {
    return defineRoute({
      ...base,
      body: AnimalVerdictForm,
      responses: { 200: { description: 'label stored', schema: AnimalVerdictOut }, ...errors },
      handler: async ({ body, caller }) => {
        const { correct_did, ...rest } = body;
        // A reference that names no animal of ours is dropped like a foreign one, never rejected.
        const id = correct_did ? animalRefToId(correct_did) : null;
        const out = await s.verdicts.record(caller!, { ...rest, ...(id ? { correct_id: id } : {}), kind: 'animal' });
        return { ok: true, correct_did: out.correct_id ? animalDid(out.correct_id) : null };
      },
    });
  }
  return defineRoute({
    ...base,
    body: VerdictForm,
    responses: { 200: { description: 'label stored', schema: VerdictOut }, ...errors },
    handler: async ({ body, caller }) => ({
      ok: true,
      ...(await s.verdicts.record(caller!, { ...body, ...(at.kind ? { kind: at.kind } : {}) })),
    }),
  });
}

export function verdictRoutes(s: Services): RouteDef[] {
  return [verdictRoute(s, { path: '/api/identify_verdict', tag: 'trees', what: 'tree' })];
}
