import { z } from 'zod';
import { TreeRef, withTreeId } from './tree-ref.js';
import { LIMITS } from '../../../shared/src/domain/limits.js';
import type { Services } from '../services/index.js';
import { CSV_HEADER, CSV_VIEW_SEPARATOR } from '../services/fruit-batch.service.js';
import { defineRoute, raw, reply, type RouteDef } from '../http/route.js';
import { eventStream, sseFrame } from '../http/event-stream.js';
import { Ok, errorResponse } from './schemas.js';

const BatchParam = z.object({ batch_id: z.string().uuid() });
const Links = z.object({ self: z.string(), events: z.string().describe('server-sent events'), csv: z.string() });
const View = z.object({
  file_name: z.string().describe("the photo's file name (with its folder, for an archive entry)"),
  status: z
    .enum(['pending', 'used', 'failed'])
    .describe("`used`: part of the row's answer; `failed`: this view alone could not be used (its `reason`), the others still decide"),
  photo_url: z.string().optional().describe("this view's photo, `/api/blobs/{cid}` (readable by the batch's owner)"),
  reason: z.string().optional().describe('why this view failed, one sentence (vi, or en with Accept-Language: en)'),
});
const Candidate = z.object({
  fruit_id: z.string(),
  short_code: z.string().describe('the first 8 characters of fruit_id, upper-case'),
  probability: z.number(),
  name: z.string().optional(),
  thumbnail: z.string().optional().describe('its first photo, `/api/blobs/{cid}`'),
  tree_name: z.string().optional(),
  tree_code: z.string().optional().describe("its tree's printed code"),
});
const Row = z.object({
  index: z.number().int().describe('position of the fruit in the request, by its first photo: `files` parts first, then archive entries'),
  file_name: z
    .string()
    .describe(
      "the fruit's name (its folder in the archive, or the part of its file names before `__`); for a photo that names no fruit, its file name",
    ),
  status: z.enum(['pending', 'done', 'failed']),
  fruit_id: z.string().optional().describe("the top candidate's fruit id (absent for no_match)"),
  candidate: z.string().optional().describe("the top candidate's name, or its id when unnamed"),
  probability: z.number().optional().describe("the top candidate's probability; not calibrated for fruit (spec section 1 rule 5)"),
  verdict: z.enum(['match', 'uncertain', 'no_match']).optional(),
  query_id: z
    .string()
    .uuid()
    .optional()
    .describe(
      'the identify answer this row was decided as: confirm or correct it with POST /api/fruit/identify_verdict (`query_id`), as for any answer; the label refines your calibration and, unless you opt out, the one pooled across owners',
    ),
  reason: z.string().optional().describe('why this fruit failed, one sentence (vi, or en with Accept-Language: en); the batch goes on'),
  photo_url: z.string().optional().describe("this fruit's first usable photo, `/api/blobs/{cid}` (readable by the batch's owner)"),
  fruit_name: z.string().optional().describe("the matched fruit's name, when it has one"),
  fruit_thumbnail: z.string().optional().describe("the matched fruit's first photo, `/api/blobs/{cid}`"),
  tree_id: z.string().optional().describe('the tree the matched fruit hangs on'),
  tree_name: z.string().optional(),
  tree_code: z.string().optional().describe("that tree's printed code"),
  fruit_short_code: z
    .string()
    .optional()
    .describe("the matched fruit's short code (first 8 characters of its id, upper-case), for a fruit with no name"),
  candidates: z
    .array(Candidate)
    .optional()
    .describe(
      "the fruit the row's answer offered, best first (one for a match, the short list when uncertain): what the owner decides among",
    ),
  decision: z
    .enum(['correct', 'wrong', 'other', 'unknown_ok'])
    .optional()
    .describe(
      "the owner's label on this row's answer (POST /api/fruit/identify_verdict with its `query_id`): `correct` decides the top candidate, `other` with `correct_id` another fruit, `other` without one none of these; absent while undecided",
    ),
  decided_at: z.string().optional(),
  decided_fruit_id: z.string().optional().describe('the fruit the owner decided this row is, when the decision names one'),
  decided_fruit_name: z.string().optional(),
  decided_fruit_short_code: z.string().optional(),
  decided_fruit_thumbnail: z.string().optional().describe("the decided fruit's first photo, `/api/blobs/{cid}`"),
  decided_tree_name: z.string().optional().describe("the decided fruit's tree"),
  decided_tree_code: z.string().optional().describe("that tree's printed code"),
  views: z
    .array(View)
    .describe("the fruit's photos in the order they came, decided together as one identify query; one for a photo that names no fruit"),
});
const TreeOut = z.object({ tree_id: z.string(), name: z.string().nullable(), code: z.string().nullable() });
const Counts = {
  total: z.number().int().describe('rows: one per fruit'),
  done: z.number().int().describe('finished rows, failed ones included'),
  failed: z.number().int(),
};
const BatchOut = Ok.extend({
  batch_id: z.string(),
  status: z.enum(['running', 'done']),
  ...Counts,
  created_at: z.string(),
  finished_at: z.string().optional(),
  rows: z.array(Row),
});
const notYours = { 401: errorResponse('not signed in'), 404: errorResponse("no such batch, or another account's (the same answer)") };

/** One SSE frame. */

/** Batch identification for packing houses: one request, one job and one row per fruit (one or several views), progress by polling or SSE, rows as JSON or CSV. */
export function fruitBatchRoutes(s: Services): RouteDef[] {
  const fb = s.fruitBatch;
  const { maxPhotos, maxBytes, maxViews } = fb.limits;
  return [
    defineRoute({
      method: 'post',
      path: '/api/fruit/batch',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-batch',
      summary: 'Identify a batch of fruit photos (or a .zip of them), one or several views per fruit; one row per fruit',
      description:
        `multipart/form-data: \`files\` (repeatable photos) and/or one \`archive\` (.zip of photos), optional \`tree_id\` (yours or shared with you) or \`farm_id\` ` +
        `narrowing the pool for the whole batch. At most BATCH_MAX_PHOTOS (here ${maxPhotos}) photos, ${LIMITS.fileBytes / 1_000_000} MB each, ` +
        `BATCH_MAX_BYTES (here ${maxBytes / 1_000_000} MB) in all. Answers 202 at once. ` +
        "Several photos of one fruit (a packing line's cameras) are its views: the photos in one folder of the archive (`fruit-17/a.jpg`, `fruit-17/b.jpg`), " +
        "or photos whose file names start with the same name before `__` (`fruit-17__cam1.jpg`, `fruit-17__cam2.jpg`), in `files` or at the archive's top; " +
        'any other photo is its own fruit. Each fruit is identified as its own job, from all its views as one query (as /api/fruit/identify decides several photos), ' +
        `and has one row. At most BATCH_MAX_VIEWS (here ${maxViews}) views per fruit: a fruit with more fails its own row. ` +
        "A photo that is empty, not an image, unusable or too large fails only its own view (and its fruit's row when no view is left), with its reason.",
      bodyType: 'multipart',
      body: z.object({
        tree_id: TreeRef.optional().describe(
          'search only fruit enrolled on this tree (id or printed code): the largest available improvement for fruit',
        ),
        farm_id: z.string().trim().min(1).max(100).optional().describe('search only fruit of this farm'),
      }),
      upload: {
        field: 'files',
        maxFiles: maxPhotos + 1,
        kind: 'image',
        extraFiles: [
          { field: 'archive', mediaType: 'application/zip', description: 'one .zip of photos (folders and hidden files are skipped)' },
        ],
        limits: { fileBytes: Math.max(LIMITS.fileBytes, maxBytes), totalBytes: maxBytes + LIMITS.framingBytes, maxFiles: maxPhotos + 1 },
      },
      responses: {
        202: {
          description: 'accepted; follow `links`',
          schema: Ok.extend({ batch_id: z.string(), total: z.number().int(), status: z.literal('running'), links: Links }),
        },
        401: errorResponse('not signed in'),
        403: errorResponse("tree_id is another account's tree shared with you without read access"),
        404: errorResponse('tree_id names no tree of yours'),
        413: errorResponse(
          'more than BATCH_MAX_PHOTOS photos, or a body over BATCH_MAX_BYTES (a single photo over 20 MB or IMAGE_MAX_PIXELS fails only its row); an archive over ARCHIVE_MAX_ENTRIES entries, ARCHIVE_MAX_INFLATED_BYTES really inflated or ARCHIVE_MAX_RATIO compression (zip bombs)',
        ),
        422: errorResponse(
          'no photos, more than one archive, an archive that is not a .zip, or one whose entries inflate to other sizes than declared',
        ),
      },
      handler: async ({ body, files, caller }) =>
        reply(202, { ok: true, ...(await fb.create(caller!, { files, ...(await withTreeId(s, body)) })) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/fruit/batches',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-batch',
      summary: 'Your batches, newest first',
      responses: {
        200: {
          description: 'the batches',
          schema: Ok.extend({
            batches: z.array(
              z.object({
                batch_id: z.string(),
                status: z.enum(['running', 'done']),
                ...Counts,
                created_at: z.string(),
                finished_at: z.string().optional(),
                tree_id: z.string().nullable(),
                farm_id: z.string().nullable(),
                links: Links,
                thumbnails: z
                  .array(z.object({ cid: z.string(), url: z.string() }))
                  .describe("the batch's first photos, `/api/blobs/{cid}`"),
                tree: TreeOut.nullable().describe('the tree the batch was narrowed to: its name and printed code'),
              }),
            ),
            count: z.number().int(),
          }),
        },
        401: errorResponse('not signed in'),
      },
      handler: async ({ caller }) => {
        const batches = await fb.list(caller!);
        return { ok: true, batches, count: batches.length };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/fruit/batch/{batch_id}',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-batch',
      summary: 'A batch: progress counts (of fruit) and one row per fruit',
      params: BatchParam,
      responses: { 200: { description: 'the batch', schema: BatchOut }, ...notYours },
      handler: async ({ params, caller, lang }) => ({ ok: true, ...(await fb.get(caller!, params.batch_id, lang)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/fruit/batch/{batch_id}/events',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-batch',
      summary: 'Batch progress as server-sent events',
      description:
        '`text/event-stream`: `event: progress` with data `{"done":n,"failed":f,"total":t}` at start and at each change, then `event: done` with the same data, ' +
        "then the stream closes. Send the token as `Authorization: Bearer` or, from a browser's EventSource (which cannot set headers), as the session cookie. " +
        'At most SSE_MAX_PER_BATCH streams per batch and SSE_MAX_PER_ACCOUNT per account are open at once; past either, 429 with Retry-After.',
      params: BatchParam,
      responses: {
        200: { description: 'the event stream', contentType: 'text/event-stream' },
        ...notYours,
        429: errorResponse('too many progress streams open for this batch or account (stream_limit_batch, stream_limit_account)'),
      },
      handler: async ({ params, caller }, ctx) => {
        await fb.owned(caller!, params.batch_id);
        // Checked after ownership, so another account's batch stays the plain 404.
        const release = s.streamSlots.acquire(caller!.account_id, params.batch_id);
        return eventStream(ctx, release, async function* (signal) {
          for await (const p of fb.progress(params.batch_id, signal)) {
            const last = { done: p.done, failed: p.failed, total: p.total };
            yield sseFrame('progress', last);
            if (p.status === 'done') yield sseFrame('done', last);
          }
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/fruit/batch/{batch_id}/results.csv',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-batch',
      summary: "A batch's rows as CSV",
      description: `Header \`${CSV_HEADER.join(',')}\`; one line per fruit; \`views\` lists its photos' file names separated by \`${CSV_VIEW_SEPARATOR}\`; RFC 4180 quoting; reasons in the request's language.`,
      params: BatchParam,
      responses: { 200: { description: 'the rows', contentType: 'text/csv' }, ...notYours },
      handler: async ({ params, caller, lang }) =>
        raw(200, await fb.csv(caller!, params.batch_id, lang), 'text/csv; charset=utf-8', {
          'Content-Disposition': `attachment; filename="batch-${params.batch_id}.csv"`,
        }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/fruit/batch/{batch_id}',
      tag: 'fruit',
      access: 'user',
      feature: 'fruit-batch',
      summary: 'Delete a batch, its rows and its stored photos',
      params: BatchParam,
      responses: { 200: { description: 'deleted', schema: Ok.extend({ batch_id: z.string(), deleted: z.literal(true) }) }, ...notYours },
      handler: async ({ params, caller }) => ({ ok: true, ...(await fb.remove(caller!, params.batch_id)) }),
    }),
  ];
}
