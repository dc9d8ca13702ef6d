import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { accepted, answerJob } from './jobs.route.js';
import { Ok, errorResponse } from './schemas.js';

const optionalNumber = (min: number, max: number) => z.coerce.number().min(min).max(max).optional();

export const TreeEnrollForm = z.object({
  farm_id: z.string().trim().min(1).max(100).optional(),
  species: z.string().trim().min(1).max(100).optional(),
  name: z.string().trim().max(200).optional(),
  lat: optionalNumber(-90, 90),
  lon: optionalNumber(-180, 180),
});

const EnrolledImage = z.object({ image_id: z.string(), cid: z.string(), width: z.number(), height: z.number(), quality: z.record(z.string(), z.unknown()) });
export const EnrollOut = Ok.extend({
  individual_id: z.string().uuid(),
  tree_id: z.string().uuid(),
  images: z.array(EnrolledImage),
  model: z.object({ name: z.string(), version: z.string() }),
  job_id: z.string(),
});

const uploadErrors = {
  401: errorResponse('not signed in'),
  413: errorResponse('a photo is over 20 MB or the batch over 64 MB; refused while streaming'),
  422: errorResponse('no photo, a zero-byte, wrong-type, undecodable or unusable photo, or a bad field; `detail` names it'),
  429: errorResponse('too many requests; wait Retry-After seconds'),
};

export function treeRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post', path: '/api/enroll', tag: 'trees', access: 'user', feature: 'tree-enroll',
      summary: 'Enrol one tree from several photos of its bark',
      description: 'multipart/form-data: `files` (repeatable, up to 20 photos, 20 MB each, 64 MB in all) plus optional farm_id, species, name, lat, lon.',
      bodyType: 'multipart', body: TreeEnrollForm, upload: { field: 'files', maxFiles: 20, kind: 'image' },
      responses: { 200: { description: 'enrolled', schema: EnrollOut }, 202: accepted, ...uploadErrors },
      handler: async ({ body, files, caller }) => {
        const outcome = await s.individuals.enroll(caller!, { kind: 'tree', attrs: body, files });
        return answerJob(outcome, (r) => ({ ok: true, ...r, tree_id: r.individual_id, job_id: outcome.done ? outcome.job_id : undefined }));
      },
    }),
  ];
}
