import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { TreeRef } from './tree-ref.js';
import { Paged, PageQuery, errorResponse } from './schemas.js';

export const FruitSummaryOut = z.object({
  fruit_id: z.string().uuid(),
  short_code: z
    .string()
    .describe('the first 8 characters of fruit_id, upper-case: what lists and the batch CSV print for a fruit with no name'),
  name: z.string().nullable(),
  species: z.string().nullable(),
  farm_id: z.string().nullable(),
  tree: z
    .object({
      tree_id: z.string().uuid(),
      name: z.string().nullable(),
      code: z.string().nullable().describe("the tree's printed traceability code"),
    })
    .nullable(),
  image_count: z.number().int(),
  cover: z.object({ image_id: z.string(), cid: z.string(), url: z.string().describe('`/api/blobs/{cid}`, the thumbnail') }).nullable(),
  visibility: z
    .enum(['private', 'restricted', 'public'])
    .describe('`public`: published (POST /api/fruit/{id}/publish), offered by public lookup and scans'),
  created_at: z.string(),
});

/** Issue 24: enrolled fruit was listed nowhere. */
export function fruitListRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/fruit',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-list',
      summary: 'Your enrolled fruit, newest first, paged; filter by tree (id or printed code) or farm',
      description:
        "Only your own fruit. `tree_id` must name one of your trees; another account's tree answers the same 404 as one that does not exist.",
      query: z.object({
        tree_id: TreeRef.optional(),
        farm_id: z.string().trim().min(1).max(100).optional(),
        fruit_id: z.string().uuid().optional().describe('just this fruit (its page): one row if it is yours, none otherwise'),
        ...PageQuery,
      }),
      responses: {
        200: { description: 'one page', schema: Paged.extend({ fruit: z.array(FruitSummaryOut) }) },
        401: errorResponse('not signed in'),
        404: errorResponse('tree_id names no tree of yours (the same answer whether it exists or not)'),
        422: errorResponse('bad limit or offset'),
      },
      handler: async ({ query, caller }) => ({ ok: true, ...(await s.fruitList.list(caller!, query)) }),
    }),
  ];
}
