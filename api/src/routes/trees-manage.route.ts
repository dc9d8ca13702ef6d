import { z } from 'zod';
import { renderMessage } from '../../../shared/src/domain/messages.js';
import type { Services } from '../services/index.js';
import { NAME_MAX_CHARS } from '../services/trees.service.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { ErrorBody, Ok, errorResponse } from './schemas.js';
import { TreeRef } from './tree-ref.js';

export const flag = z.enum(['1', '0', 'true', 'false']).transform((v) => v === '1' || v === 'true');

const TreeOut = z.object({
  tree_id: z.string(),
  owner_id: z.string(),
  access: z.enum(['owner', 'read', 'write']).describe('`owner`, or the grant through which you see it'),
  farm_id: z.string().nullable(),
  species: z.string().nullable(),
  name: z.string().nullable(),
  lat: z.number().nullable(),
  lon: z.number().nullable(),
  code: z.string().nullable().describe('traceability code; null until the canonical record exists'),
  visibility: z.enum(['private', 'restricted', 'public']),
  image_count: z.number().int(),
  created_at: z.string(),
});
const ViewOut = z.object({
  image_id: z.string(),
  cid: z.string(),
  source: z.string(),
  in_record: z.boolean(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  quality: z.record(z.string(), z.unknown()),
  model_version: z.string().nullable(),
  created_at: z.string(),
});
const Feature = z.object({
  part: z.enum(['upper', 'middle', 'lower', 'overall']),
  label_vi: z.string(),
  score: z.number().describe('measured repeatability in [0, 1]'),
  band: z.enum(['cao', 'vừa', 'thấp']),
  samples: z.number().int().describe('keypoints (regions) or view pairs (overall) measured'),
});
export const ViewsOut = Ok.extend({
  tree_id: z.string(),
  views: z.array(ViewOut),
  count: z.number().int(),
  features_vi: z.string().optional().describe('describe=1: which parts re-photograph consistently and which vary, in bands cao/vừa/thấp'),
  features: z.array(Feature).optional().describe('describe=1: the measurements behind features_vi'),
  views_measured: z.number().int().optional(),
});
const notYours = { 401: errorResponse('not signed in'), 404: errorResponse('no such tree, or not yours (the same answer)') };

/** A rename names one tree (id or printed code) or one fruit (its id), never both (issue 39: fruit is renamed too). */
const RenameBody = z
  .object({
    tree_id: TreeRef.optional(),
    fruit_id: z.string().trim().uuid().optional().describe('the fruit to rename (its id), instead of tree_id'),
    name: z.string().max(1000),
  })
  .refine((b) => (b.tree_id === undefined) !== (b.fruit_id === undefined), {
    path: ['fruit_id'],
    message: 'exactly one of tree_id and fruit_id',
  });

/** Tree lists, views (with measured descriptions) and renaming. */
export function treeManageRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/trees',
      tag: 'trees',
      access: 'user',
      feature: 'tree-list',
      summary: 'Your trees, optionally of one farm',
      description: 'include_shared=1 adds trees other accounts shared with you through POST /api/grant (`access` says how).',
      query: z.object({ farm_id: z.string().trim().min(1).max(100).optional(), include_shared: flag.optional() }),
      responses: {
        200: { description: 'the trees, oldest first', schema: Ok.extend({ trees: z.array(TreeOut), count: z.number().int() }) },
        401: errorResponse('not signed in'),
      },
      handler: async ({ query, caller }) => {
        const trees = await s.trees.list(caller!.account_id, query);
        return { ok: true, trees, count: trees.length };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/tree_views',
      tag: 'trees',
      access: 'user',
      feature: 'tree-views',
      summary: 'The photos (views) of one tree; describe=1 adds features_vi measured from them',
      description:
        'features_vi is computed from the stored descriptors: the share of local keypoints in the upper, middle and lower third of each photo that are ' +
        'found again in another photo of the tree, and the mean similarity of the global embeddings (overall look). Each gets a band: cao, vừa or thấp.',
      query: z.object({ tree_id: TreeRef, describe: flag.optional() }),
      responses: { 200: { description: 'the views', schema: ViewsOut }, ...notYours },
      handler: async ({ query, caller }) => {
        const out = await s.views.list(caller!.account_id, await s.treeRef(query.tree_id), query.describe ?? false);
        return { ok: true, ...out, count: out.views.length };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/rename',
      tag: 'trees',
      access: 'user',
      feature: 'tree-rename',
      summary: 'Rename a tree or a fruit (owner or read-write grantee)',
      description:
        'Form (or JSON) `name` with exactly one of `tree_id` (a tree: its id or printed code) or `fruit_id` (a fruit: its id). ' +
        `The name is cleaned (Unicode NFC; control, invisible and markup characters removed; spaces collapsed; at most ${NAME_MAX_CHARS} characters). ` +
        'A name with nothing left after cleaning answers HTTP 200 with ok:false and code `rename_empty`; the old name stays. ' +
        "A fruit's new name is what the fruit list, its page, batch rows and their CSV (`fruit_name`, `decided_fruit_name`) and shoppers' answers show. " +
        "Another account's tree or fruit is the same 404 as one that does not exist; both ids, or neither, is a 422 naming `fruit_id`.",
      bodyType: 'form',
      body: RenameBody,
      responses: {
        200: {
          description: 'renamed (ok:true, with `tree_id` or `fruit_id` as asked) or nothing left after cleaning (ok:false)',
          schema: z.union([
            Ok.extend({ tree_id: z.string(), name: z.string() }),
            Ok.extend({ fruit_id: z.string(), name: z.string() }),
            ErrorBody,
          ]),
        },
        403: errorResponse('read-only grantee'),
        401: errorResponse('not signed in'),
        404: errorResponse('no such tree or fruit, or not yours (the same answer)'),
        422: errorResponse('name missing or too long, fruit_id not a uuid, or not exactly one of tree_id and fruit_id'),
      },
      handler: async ({ body, caller, lang }) => {
        const done = body.fruit_id
          ? await s.trees.rename(caller!.account_id, body.fruit_id, body.name, 'fruit')
          : await s.trees.rename(caller!.account_id, await s.treeRef(body.tree_id!), body.name);
        if (done) return body.fruit_id ? { ok: true, fruit_id: done.tree_id, name: done.name } : { ok: true, ...done };
        const error = renderMessage('rename_empty', lang);
        return { ok: false, error, detail: 'name', code: 'rename_empty' };
      },
    }),
  ];
}
