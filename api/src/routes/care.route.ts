import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { errorResponse as err } from './schemas.js';
import {
  BannedOut,
  BannedQuery,
  DeleteForm,
  DeleteOut,
  EventsOut,
  LogForm,
  LogOut,
  MatchForm,
  MatchOut,
  ProductsOut,
  ProductsQuery,
  TargetQuery,
  WithdrawalStatusOut,
} from './care.schemas.js';

const PUBLIC_DATA = 'Public (no token): regulatory reference data; nothing about the caller is read or kept.';
const notYours = err('no such individual, or not yours and not granted to you: one identical answer');

/**
 * Care routes (spec section 4 "Care"). Note B leaves authentication open; chosen here: the
 * reference data (banned catalogue, product store) is public, everything that reads a photo or
 * touches an individual's care log needs a token.
 */
export function careRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/care/match',
      tag: 'care',
      access: 'user',
      feature: 'care-match',
      summary: 'Match a product by text or packaging photo; flags banned or restricted ingredients',
      description:
        'multipart/form-data: optional `text` and an optional packaging photo in `files` (or `photo`, as the care log names it; a file in any other field is a 422). Text is matched directly; a photo alone is read by OCR ' +
        '(tesseract, Vietnamese and English). Answer: the care match result of spec section 2. Token required (OCR is costly); nothing is stored.',
      bodyType: 'multipart',
      body: MatchForm,
      upload: { field: 'files', aliases: ['photo'], maxFiles: 1, kind: 'image' },
      responses: {
        200: { description: 'the care match result', schema: MatchOut },
        401: err('not signed in'),
        413: err('photo over 20 MB, or over IMAGE_MAX_PIXELS pixels (read from its header before OCR decodes it)'),
        422: err('empty or non-image photo, or a file in a field other than `files` or `photo`'),
        429: err(
          'too many photos being read at once, on this server or for this account (ocr_busy, ocr_busy_account); Retry-After says when to try again',
        ),
      },
      handler: async ({ body, files, lang, caller }) => ({
        ok: true,
        ...(await s.care.match(body.text, files[0], lang, caller!.account_id)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/care/banned',
      tag: 'care',
      access: 'public',
      feature: 'care-banned',
      summary: 'Banned or restricted active ingredients for crops, livestock and aquaculture, each with its sources',
      description: `Filter by scope and severity. A non-empty q runs the same lookup as POST /api/care/match on that text (synonyms, trade names, CAS numbers, Vietnamese with or without diacritics) and writes nothing. ${PUBLIC_DATA}`,
      query: BannedQuery,
      responses: { 200: { description: 'catalogue rows', schema: BannedOut }, 422: err('bad scope or severity') },
      handler: async ({ query, lang }) => ({ ok: true, ...(await s.care.banned(query, lang)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/care/products',
      tag: 'care',
      access: 'public',
      feature: 'care-products',
      summary: 'Registered products with withdrawal or pre-harvest intervals, each with a source',
      description: PUBLIC_DATA,
      query: ProductsQuery,
      responses: { 200: { description: 'products', schema: ProductsOut }, 422: err('bad scope') },
      handler: async ({ query }) => ({ ok: true, ...(await s.care.products(query.scope, query.category)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/care/log',
      tag: 'care',
      access: 'user',
      feature: 'care-log',
      summary: 'Log a care action on a tree, fruit lot or animal (packaging photo stored by CID)',
      description:
        'multipart/form-data; the optional packaging photo goes in `photo` and is stored in the content-addressed store. The target must be yours or granted to you with write access. ' +
        "The withdrawal is computed now from the product store (or interval_days) and kept with its source. The entry appears on the target's timeline as an inherited event.",
      bodyType: 'multipart',
      body: LogForm,
      upload: { field: 'photo', maxFiles: 1, kind: 'image' },
      responses: {
        200: { description: 'logged', schema: LogOut },
        401: err('not signed in'),
        404: notYours,
        413: err('photo over 20 MB or over IMAGE_MAX_PIXELS pixels'),
        422: err('missing or bad field, unknown product_id, future applied_at, non-image photo'),
      },
      handler: async ({ body, files, caller }) => ({
        ok: true,
        ...(await s.careLog.log(caller!.account_id, {
          ...body,
          applied_at: body.applied_at ? new Date(body.applied_at) : undefined,
          photo: files[0],
        })),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/care/events',
      tag: 'care',
      access: 'user',
      feature: 'care-log',
      summary: 'Care log of one of your (or granted) individuals',
      query: TargetQuery,
      responses: {
        200: { description: 'care entries, oldest first', schema: EventsOut },
        401: err('not signed in'),
        404: notYours,
        422: err('target_type or target_id missing'),
      },
      handler: async ({ query, caller }) => ({
        ok: true,
        ...(await s.careLog.events(caller!.account_id, query.target_type, query.target_id)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/care/withdrawal',
      tag: 'care',
      access: 'user',
      feature: 'care-log',
      summary: 'Whether harvest or sale is blocked by a withdrawal, until when, and why',
      query: TargetQuery,
      responses: {
        200: { description: 'withdrawal status', schema: WithdrawalStatusOut },
        401: err('not signed in'),
        404: notYours,
        422: err('target_type or target_id missing'),
      },
      handler: async ({ query, caller }) => ({
        ok: true,
        ...(await s.careLog.withdrawal(caller!.account_id, query.target_type, query.target_id)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/care/delete',
      tag: 'care',
      access: 'user',
      feature: 'care-log',
      summary: 'Delete one of your own care entries (the timeline keeps a deletion event)',
      description:
        "Urlencoded form `id`. Only the entry's author may delete it; another account's entry and a missing one get the same 404.",
      bodyType: 'form',
      body: DeleteForm,
      responses: {
        200: { description: 'deleted', schema: DeleteOut },
        401: err('not signed in'),
        404: err('no such entry of yours'),
        422: err('id missing'),
      },
      handler: async ({ body, caller }) => ({ ok: true, ...(await s.careLog.remove(caller!.account_id, body.id)) }),
    }),
  ];
}
