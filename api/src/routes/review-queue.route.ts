import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Paged, PageQuery, errorResponse } from './schemas.js';

const Photo = z.object({ cid: z.string(), url: z.string().describe('`/api/blobs/{cid}`, readable by you') });
const Closest = z
  .object({
    rank: z.number().int(),
    individual_id: z.string(),
    animal_did: z.string().optional(),
    name: z.string().nullable(),
    species: z.string().nullable().optional(),
    probability: z.number().optional(),
    photos: z.array(Photo.extend({ image_id: z.string() })),
    match_lines: z.unknown().optional(),
  })
  .passthrough();
const Item = z.object({
  query_id: z
    .string()
    .uuid()
    .describe('decide with identify_verdict, /api/animal/confirm or enrol-as-new (query_id); any of these removes it from the queue'),
  kind: z.enum(['tree', 'fruit', 'animal']),
  verdict: z.enum(['uncertain', 'no_match']),
  source: z
    .enum(['photos', 'video', 'survey', 'batch'])
    .describe(
      "`video`: `photos` holds the one video asked with; `survey`: the track's crops from a survey; `batch`: a fruit of a packing-house batch, `photos` its views",
    ),
  photos: z.array(Photo).describe("the query's photos"),
  closest: z.array(Closest).describe('the closest individuals shown with the answer'),
  created_at: z.string(),
});

/** Issue 24: the identify answers waiting for a decision, with their count for the app's badge. */
export function reviewQueueRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/review/queue',
      tag: 'review',
      access: 'user',
      feature: 'review-queue',
      summary: 'Your identify answers awaiting a decision, newest first',
      description:
        'Queries of yours answered `uncertain`, or `no_match` with closest individuals shown, that carry no label yet. ' +
        'Labelling one (POST /api/{kind}/identify_verdict, POST /api/animal/confirm, or enrolling with its query_id) takes it off. `total` is the whole queue.',
      query: z.object({
        kind: z.enum(['tree', 'fruit', 'animal']).optional(),
        ...PageQuery,
      }),
      responses: {
        200: { description: 'one page', schema: Paged.extend({ items: z.array(Item) }) },
        401: errorResponse('not signed in'),
        422: errorResponse('bad kind, limit or offset'),
      },
      handler: async ({ query, caller }) => ({ ok: true, ...(await s.reviewQueue.list(scopeOfCaller(caller!), query)) }),
    }),
  ];
}
