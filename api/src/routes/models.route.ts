import { z } from 'zod';
import { AppError } from '../../../shared/src/domain/errors.js';
import type { Container } from '../../../shared/src/container.js';
import { ModelRefusedError, registerModel, shadowReport } from '../../../workers/src/recognition/model-lifecycle.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse as err } from './schemas.js';

const RegisterBody = z.object({
  dir: z.string().min(1).max(1000).describe('folder on the service machine holding manifest.json (schema 2) and the ONNX file'),
  shadow_share: z.coerce.number().min(0).max(1).default(0.1).describe('share of live identify requests it scores in shadow (default 0.1)'),
});
const ModelReport = z.object({
  model: z.string(), status: z.enum(['shadow', 'serving', 'retired']), shadow_share: z.number(), sha256: z.string(), licence: z.string(),
  scored: z.number().int().describe('identify requests scored in shadow'),
  agreement: z.number().nullable().describe('share whose top candidate equals the served one'),
  labelled: z.number().int(),
  shadow_accuracy: z.number().nullable().describe('top-1 right per the identify_verdict labels'),
  served_accuracy: z.number().nullable(),
});
const denied = { 401: err('not signed in'), 403: err('signed in, but not an administrator') };

/** Models in (issue 17): register a candidate (checked, then in shadow) and read the shadow report. */
export function modelRoutes(c: Container): RouteDef[] {
  return [
    defineRoute({
      method: 'post', path: '/api/admin/models', tag: 'admin', access: 'admin', feature: 'admin', bodyType: 'json', body: RegisterBody,
      summary: 'Register a candidate model: sha256 and licence checked, photos embedded with it, then it scores a share of identify requests in shadow',
      responses: {
        200: { description: 'registered, in shadow', schema: Ok.extend({ model: z.string(), status: z.literal('shadow'), shadow_share: z.number(), reembedded: z.number().int() }) },
        ...denied,
        422: err('bad body, or the model was refused (sha256 mismatch, no licence, malformed manifest, already registered)'),
      },
      handler: async ({ body }) => {
        try {
          const r = await registerModel(c, body.dir, body.shadow_share);
          return { ok: true, model: `${r.name}@${r.version}`, status: 'shadow' as const, shadow_share: r.shadow_share, reembedded: r.reembedded };
        } catch (e) {
          if (e instanceof ModelRefusedError) throw new AppError(422, 'model_refused', { reason: e.reason });
          throw e;
        }
      },
    }),
    defineRoute({
      method: 'get', path: '/api/admin/models', tag: 'admin', access: 'admin', feature: 'admin',
      summary: 'Registered models with their shadow agreement and label-based accuracy',
      responses: { 200: { description: 'one entry per registered model', schema: Ok.extend({ models: z.array(ModelReport) }) }, ...denied },
      handler: async () => ({ ok: true, models: await shadowReport(c) }),
    }),
  ];
}
