import { z } from 'zod';
import { AppError } from '../../../shared/src/domain/errors.js';
import type { Container } from '../../../shared/src/container.js';
import { shadowReport } from '../../../shared/src/repos/model-registrations.repo.js';
import { BUNDLED_MODELS_DIR, candidateModelDir } from '../services/model-folder.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse as err } from './schemas.js';

const RegisterBody = z.object({
  dir: z
    .string()
    .min(1)
    .max(1000)
    .describe(
      'folder holding manifest.json (schema 2) and the ONNX file, inside the models folder (MODELS_DIR or the bundled models/): relative to it, or an absolute path inside it',
    ),
  shadow_share: z.coerce.number().min(0).max(1).default(0.1).describe('share of live identify requests it scores in shadow (default 0.1)'),
});
const ModelReport = z.object({
  model: z.string(),
  status: z.enum(['shadow', 'serving', 'retired']),
  shadow_share: z.number(),
  sha256: z.string(),
  licence: z.string(),
  scored: z.number().int().describe('identify requests scored in shadow'),
  agreement: z.number().nullable().describe('share whose top candidate equals the served one'),
  labelled: z.number().int(),
  shadow_accuracy: z.number().nullable().describe('top-1 right per the identify_verdict labels'),
  served_accuracy: z.number().nullable(),
});
/** Re-embedding every photo with a candidate can take long on a large library. */
const REGISTER_WAIT_MS = 30 * 60_000;
const denied = { 401: err('not signed in'), 403: err('signed in, but not an administrator') };

/** Models in (issue 17): register a candidate (checked, then in shadow) and read the shadow report. */
export function modelRoutes(c: Container): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/admin/models',
      tag: 'admin',
      access: 'admin',
      feature: 'admin',
      bodyType: 'json',
      body: RegisterBody,
      summary:
        'Register a candidate model: sha256 and licence checked, photos embedded with it, then it scores a share of identify requests in shadow',
      responses: {
        200: {
          description: 'registered, in shadow',
          schema: Ok.extend({ model: z.string(), status: z.literal('shadow'), shadow_share: z.number(), reembedded: z.number().int() }),
        },
        ...denied,
        422: err(
          'bad body, a folder outside the models folder or missing (one answer for both), or the model was refused (sha256 mismatch, no licence, malformed manifest, already registered)',
        ),
      },
      // Registering embeds every photo: a job on the reindex queue, so this process never loads a model (issue 22).
      // The call still answers when it is done, as before; a refusal is the job's 422.
      handler: async ({ body }) => {
        const dir = candidateModelDir(
          body.dir,
          [c.config.MODELS_DIR, BUNDLED_MODELS_DIR].filter((d): d is string => !!d),
        );
        const id = await c.queue.enqueue('model_register', { dir, shadow_share: body.shadow_share });
        const rec = await c.queue.waitFor(id, REGISTER_WAIT_MS);
        if (rec?.state === 'failed' && rec.error?.code === 'model_refused')
          throw new AppError(422, 'model_refused', rec.error.params ?? {});
        if (rec?.state !== 'completed') throw new AppError(500, 'internal');
        const r = rec.result as { model: string; shadow_share: number; reembedded: number };
        return { ok: true, model: r.model, status: 'shadow' as const, shadow_share: r.shadow_share, reembedded: r.reembedded };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/admin/models',
      tag: 'admin',
      access: 'admin',
      feature: 'admin',
      summary: 'Registered models with their shadow agreement and label-based accuracy',
      responses: { 200: { description: 'one entry per registered model', schema: Ok.extend({ models: z.array(ModelReport) }) }, ...denied },
      handler: async () => ({ ok: true, models: await shadowReport(c) }),
    }),
  ];
}
