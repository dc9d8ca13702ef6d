import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, reply, type RouteDef } from '../http/route.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { errorBody } from '../middleware/errors.js';
import { accepted, answerJob } from './jobs.route.js';
import { EnrollOut, IdentifyOut, uploadErrors, videoErrors } from './recognition.schemas.js';
import { Ok } from './schemas.js';
import { TreeRef, withTreeId } from './tree-ref.js';

const optionalNumber = (min: number, max: number) => z.coerce.number().min(min).max(max).optional();

export const TreeEnrollForm = z.object({
  farm_id: z.string().trim().min(1).max(100).optional(),
  species: z.string().trim().min(1).max(100).optional(),
  name: z.string().trim().max(200).optional(),
  lat: optionalNumber(-90, 90),
  lon: optionalNumber(-180, 180),
});
export const IdentifyForm = z.object({
  farm_id: z.string().trim().min(1).max(100).optional(),
  species: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('a species confirmed by /api/scan/confirm: only your trees of that species are matched'),
});
const VideoForm = IdentifyForm.extend({ max_frames: z.coerce.number().int().min(1).max(32).default(8) });
const TreeId = z.object({ id: TreeRef });
const asTree = (r: Record<string, unknown>) => ({ ok: true, ...r, tree_id: r.individual_id });

export function treeRoutes(s: Services): RouteDef[] {
  const ind = s.individuals;
  return [
    defineRoute({
      method: 'post',
      path: '/api/enroll',
      tag: 'trees',
      access: 'user',
      feature: 'tree-enroll',
      summary: 'Enrol one tree from several photos of its bark',
      description:
        'multipart/form-data: `files` (repeatable, up to 20 photos, 20 MB each, 64 MB in all) plus optional farm_id, species, name, lat, lon.',
      bodyType: 'multipart',
      body: TreeEnrollForm,
      upload: { field: 'files', maxFiles: 20, kind: 'image' },
      responses: { 200: { description: 'enrolled', schema: EnrollOut }, 202: accepted, ...uploadErrors },
      handler: async ({ body, files, caller }) => answerJob(await ind.enroll(caller!, { kind: 'tree', attrs: body, files }), asTree),
    }),
    defineRoute({
      method: 'post',
      path: '/api/identify',
      tag: 'trees',
      access: 'user',
      feature: 'tree-identify',
      summary: 'Identify a tree from one or more photos',
      description:
        'Answers `match` (the tree), `uncertain` (a short list with photos: let the person choose; this is a valid answer, not an error, and must not be retried) or `no_match`. Matching never leaves your own pool (plus trees shared with you).',
      bodyType: 'multipart',
      body: IdentifyForm,
      upload: { field: 'files', maxFiles: 10, kind: 'image' },
      responses: { 200: { description: 'a verdict', schema: IdentifyOut }, 202: accepted, ...uploadErrors },
      handler: async ({ body, files, caller }) =>
        answerJob(await ind.identify(caller!, { kind: 'tree', files, filters: body }), (r) => ({ ok: true, ...r })),
    }),
    defineRoute({
      method: 'post',
      path: '/api/identify/video',
      tag: 'trees',
      access: 'user',
      feature: 'tree-identify-video',
      summary: 'Identify a tree from a video (sharp, distinct frames fused as one query)',
      bodyType: 'multipart',
      body: VideoForm,
      upload: { field: 'file', maxFiles: 1, kind: 'video' },
      responses: {
        200: { description: 'a verdict', schema: IdentifyOut.extend({ frames_used: z.number().int() }) },
        202: accepted,
        ...videoErrors,
      },
      handler: async ({ body, files, caller }) => {
        const { max_frames, ...filters } = body;
        return answerJob(await ind.identifyVideo(caller!, 'tree', files, filters, max_frames), (r) => ({ ok: true, ...r }));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/verify_add',
      tag: 'trees',
      access: 'user',
      feature: 'tree-enroll',
      summary: 'Confirm a match, then add the new photo(s) to that tree as another angle',
      description:
        'The photos are first identified among your trees (spec: "confirm the match, then add"). Only a `match` on `tree_id` adds them; ' +
        'any other verdict is 422 `verify_add_mismatch` with the identification in `verdict`, and nothing is added. ' +
        'When the identification outlives JOB_WAIT_MS the answer is its 202 job; send the request again once it has completed.',
      bodyType: 'multipart',
      body: z.object({ tree_id: TreeRef }),
      upload: { field: 'files', maxFiles: 10, kind: 'image' },
      responses: { 200: { description: 'views added', schema: EnrollOut }, 202: accepted, ...uploadErrors },
      handler: async ({ body: raw, files, caller }, ctx) => {
        const body = await withTreeId(s, raw);
        await ind.owned(caller!, body.tree_id, 'tree');
        const check = await ind.identify(caller!, { kind: 'tree', files, filters: {} });
        if (!check.done) return answerJob(check, (r) => r);
        const match = check.result.match as { individual_id?: string } | null;
        if (check.result.verdict !== 'match' || match?.individual_id !== body.tree_id) {
          const err = new AppError(422, 'verify_add_mismatch', { field: 'files' });
          return reply(422, {
            ...errorBody(ctx, err),
            verdict: { verdict: check.result.verdict, match: check.result.match, candidates: check.result.candidates },
          });
        }
        return answerJob(await ind.addViews(caller!, 'tree', body.tree_id, files, 'verify_add'), asTree);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/tree/{id}/video',
      tag: 'trees',
      access: 'user',
      feature: 'tree-video',
      summary: "Add a video's sharp, distinct frames to a tree as views",
      params: TreeId,
      bodyType: 'multipart',
      body: VideoForm.pick({ max_frames: true }),
      upload: { field: 'file', maxFiles: 1, kind: 'video' },
      responses: {
        200: { description: 'views added', schema: EnrollOut.extend({ video_cid: z.string(), frames_used: z.number().int() }) },
        202: accepted,
        ...videoErrors,
      },
      handler: async ({ params, body, files, caller }) =>
        answerJob(await ind.addVideoViews(caller!, 'tree', await s.treeRef(params.id), files, body.max_frames), asTree),
    }),
    defineRoute({
      method: 'post',
      path: '/api/tree/{id}/fruit_video',
      tag: 'trees',
      access: 'user',
      feature: 'tree-video',
      summary: 'Store a video of fruit on a tree; returns its content address (CIDv1)',
      params: TreeId,
      bodyType: 'multipart',
      body: z.object({}),
      upload: { field: 'file', maxFiles: 1, kind: 'video' },
      responses: {
        200: { description: 'stored', schema: Ok.extend({ cid: z.string(), size: z.number().int(), content_type: z.string() }) },
        ...videoErrors,
      },
      handler: async ({ params, files, caller }) => ({ ok: true, ...(await ind.storeVideo(caller!, await s.treeRef(params.id), files)) }),
    }),
  ];
}
