import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { accepted, answerJob } from './jobs.route.js';
import { EnrollOut, IdentifyOut, uploadErrors } from './recognition.schemas.js';
import { TreeRef, withTreeId } from './tree-ref.js';
import { flag, ViewsOut } from './trees-manage.route.js';
import { verdictRoute } from './verdict.route.js';
import { errorResponse } from './schemas.js';
import { IdentifyForm, TreeEnrollForm } from './trees.route.js';

// A fruit's place is its tree's, so it takes tree_id instead of lat/lon.
const FruitEnrollForm = TreeEnrollForm.omit({ lat: true, lon: true }).extend({
  tree_id: TreeRef.optional().describe(
    'the tree (yours) the fruit hangs on, by id or printed code; fruit identify can then be narrowed to it',
  ),
});
const FruitIdentifyForm = IdentifyForm.extend({
  tree_id: TreeRef.optional().describe(
    'search only fruit enrolled on this tree (id or printed code): the largest available improvement for fruit',
  ),
});
const FruitEnrollOut = EnrollOut.extend({
  fruit_id: z.string().uuid(),
  evidence: z
    .enum(['server_only', 'recorded'])
    .describe(
      '`server_only` (default, as on the live service): photos are kept on this server only, not pinned and not anchorable. ' +
        "`recorded` when EVIDENCE_FRUIT_AND_BOUNDARIES is on: a canonical DAG-CBOR record (record_cid, record_hash) was written and tied into the fruit's chain.",
    ),
  record_cid: z.string().optional(),
  record_hash: z.string().optional(),
});
const FRUIT_CAVEAT =
  'Fruit peel matching is weaker than bark matching: show the candidate list with its photos and let the person choose; send tree_id when you know the tree. ' +
  'A fruit answer is an answer of the service, not independently checkable evidence, unless EVIDENCE_FRUIT_AND_BOUNDARIES is on.';

const asFruit = (r: Record<string, unknown>) => ({ ok: true, ...r, fruit_id: r.individual_id });

export function fruitRoutes(s: Services): RouteDef[] {
  const ind = s.individuals;
  return [
    defineRoute({
      method: 'post',
      path: '/api/fruit/enroll',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-enroll',
      summary: 'Enrol one fruit from photos of its peel',
      description:
        'multipart/form-data: `files` (repeatable, up to 20 photos, 20 MB each, 64 MB in all) plus optional tree_id, farm_id, species, name.',
      bodyType: 'multipart',
      body: FruitEnrollForm,
      upload: { field: 'files', maxFiles: 20, kind: 'image' },
      responses: {
        200: { description: 'enrolled', schema: FruitEnrollOut },
        202: accepted,
        ...uploadErrors,
        403: errorResponse('tree_id is a tree shared with you, not yours'),
      },
      handler: async ({ body: raw, files, caller }) => {
        const body = await withTreeId(s, raw);
        if (body.tree_id) await s.trees.access(caller!.account_id, body.tree_id, 'owner');
        return answerJob(await ind.enroll(caller!, { kind: 'fruit', attrs: body, files }), asFruit);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/fruit/identify',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-identify',
      summary: 'Identify a fruit from one or more photos; tree_id narrows the search',
      description: `Same answer shape as /api/identify. ${FRUIT_CAVEAT}`,
      bodyType: 'multipart',
      body: FruitIdentifyForm,
      upload: { field: 'files', maxFiles: 10, kind: 'image' },
      responses: { 200: { description: 'a verdict and the candidates', schema: IdentifyOut }, 202: accepted, ...uploadErrors },
      handler: async ({ body: raw, files, caller }) => {
        const body = await withTreeId(s, raw);
        if (body.tree_id) await s.trees.access(caller!.account_id, body.tree_id, 'read');
        return answerJob(await ind.identify(caller!, { kind: 'fruit', files, filters: body }), (r) => ({ ok: true, ...r }));
      },
    }),
    verdictRoute(s, { path: '/api/fruit/identify_verdict', tag: 'fruit', what: 'fruit' }),
    defineRoute({
      method: 'get',
      path: '/api/fruit/{id}/views',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-views',
      summary: 'The photos (views) of one fruit; describe=1 adds features_vi measured from them',
      params: z.object({ id: z.string().min(1).max(100) }),
      query: z.object({ describe: flag.optional() }),
      responses: {
        200: { description: 'the views', schema: ViewsOut.omit({ tree_id: true }).extend({ fruit_id: z.string() }) },
        401: errorResponse('not signed in'),
        404: errorResponse('no such fruit, or not yours (the same answer)'),
      },
      handler: async ({ params, query, caller }) => {
        const { tree_id: fruitId, ...out } = await s.views.list(caller!.account_id, params.id, query.describe ?? false, 'fruit');
        return { ok: true, fruit_id: fruitId, ...out, count: out.views.length };
      },
    }),
  ];
}
