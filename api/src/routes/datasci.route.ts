import { scopeChosenByOperator, scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, Reply, type RouteDef } from '../http/route.js';
import type { ExportPage } from '../services/datasci-export.service.js';
import { errorResponse as err } from './schemas.js';

const ExportQuery = z.object({
  cursor: z.string().max(400).optional().describe('resume after the page that returned this cursor (header X-Export-Next-Cursor)'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(1000)
    .describe('photos of the gallery plus identify queries per page, 1 to 5000 (default 1000)'),
});
const AdminExportQuery = ExportQuery.extend({
  owner_id: z.string().uuid().optional().describe('one owner’s data; every owner’s when omitted'),
});

const zipDoc = {
  description:
    'one zip page: images/<cid>.<ext>, manifest.csv, manifest.jsonl, export.json. Headers: X-Export-Items-Total, X-Export-Items-Before, X-Export-Rows, X-Export-Next-Cursor (absent on the last page)',
  contentType: 'application/zip',
};

/** The page as a streamed zip, its progress in headers (known before the first byte). */
function zipReply(p: ExportPage): Reply {
  const headers: Record<string, string> = {
    'Content-Type': 'application/zip',
    'Content-Disposition': 'attachment; filename="markless-labels.zip"',
    'Cache-Control': 'no-store',
    'X-Export-Items-Total': String(p.total),
    'X-Export-Items-Before': String(p.before),
    'X-Export-Rows': String(p.rows.length),
    'Access-Control-Expose-Headers': 'X-Export-Items-Total, X-Export-Items-Before, X-Export-Rows, X-Export-Next-Cursor',
  };
  if (p.next) headers['X-Export-Next-Cursor'] = p.next;
  return new Reply(200, p.stream, headers, true);
}

/** Labels out (issue 17): the caller's labelled data; admins any owner's, or all. */
export function datasciRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/datasci/export',
      tag: 'datasci',
      access: 'user',
      feature: 'datasci-export',
      summary: 'Export your enrolled photos and labelled identify queries (zip page: images, CSV, JSON Lines)',
      description:
        'Only the caller’s own photos, individuals, queries and labels. Resumable: pass the previous page’s X-Export-Next-Cursor as `cursor`. Layout in docs/data-science.md.',
      query: ExportQuery,
      responses: { 200: zipDoc, 400: err('a cursor this export did not give out'), 401: err('not signed in'), 422: err('bad limit') },
      handler: async ({ query, caller }) => zipReply(await s.datasciExport.exportPage(scopeOfCaller(caller!), query)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/admin/datasci/export',
      tag: 'admin',
      access: 'admin',
      feature: 'admin',
      summary: 'Export one owner’s (owner_id) or every owner’s labelled data (admin only)',
      query: AdminExportQuery,
      responses: {
        200: zipDoc,
        401: err('not signed in'),
        400: err('a cursor this export did not give out'),
        403: err('signed in, but not an administrator'),
        422: err('bad owner_id or limit'),
      },
      // owner_id comes from the query string on purpose: the operator picks one owner, or everyone.
      handler: async ({ query, operator }) =>
        zipReply(await s.datasciExport.exportPage(scopeChosenByOperator(operator!, query.owner_id ?? null), query)),
    }),
  ];
}
