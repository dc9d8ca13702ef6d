import { z } from 'zod';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { renderMessage } from '../../../shared/src/domain/messages.js';
import type { Services } from '../services/index.js';
import { SCAN_TOKEN_TTL_S, SCAN_TOP_K } from '../services/scan.service.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse } from './schemas.js';

const ScanOut = Ok.extend({
  scan_token: z.string().describe(`single use; expires after ${SCAN_TOKEN_TTL_S} s`),
  species_guess: z.string().describe('the first of top_k: your most-enrolled species, else the first catalogue species'),
  top_k: z.array(z.string()).max(SCAN_TOP_K).describe('species you may confirm with this token'),
  candidates: z
    .array(z.object({ species: z.string(), source: z.enum(['orchard', 'catalog']), trees: z.number().int() }))
    .describe('top_k with where each came from'),
  need_confirm: z.literal(true),
  expires_at: z.string(),
  species_basis: z
    .literal('prior')
    .describe("the list is your orchard's prior (your enrolled species, then the catalogue), NOT a guess from the photo"),
  species_note: z.string().describe("the same, as a sentence in the caller's language"),
});
const ConfirmOut = Ok.extend({
  consumed: z.literal(true),
  species: z.string().describe('the confirmed species, spelt as offered in top_k'),
  next: z
    .object({
      method: z.literal('POST'),
      path: z.literal('/api/identify'),
      fields: z.object({ species: z.string() }).describe('send these form fields with the photos'),
    })
    .describe('where to go next: identify the tree among your trees of this species'),
});

/** Tree scan and confirm: the token state table of spec section 3. */
export function scanRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/scan',
      tag: 'trees',
      access: 'user',
      feature: 'tree-scan',
      summary: 'Scan a tree photo: get a single-use scan_token and species to confirm',
      description:
        'multipart/form-data with one photo in `files`. The photo is checked (type, decodable) and not stored. The species list is ranked from your own ' +
        'enrolled trees (most trees first), then tree and fruit-crop species of the catalogue. `need_confirm` is always true: confirm with POST /api/scan/confirm.',
      bodyType: 'multipart',
      upload: { field: 'files', maxFiles: 1, kind: 'image' },
      responses: {
        200: { description: 'token issued', schema: ScanOut },
        401: errorResponse('not signed in'),
        413: errorResponse('the photo is over 20 MB or over IMAGE_MAX_PIXELS pixels (read from its header before decoding)'),
        422: errorResponse('no photo, an empty, wrong-type or undecodable photo'),
      },
      handler: async ({ files, caller, lang }) => ({
        ok: true,
        ...(await s.scan.issue(scopeOfCaller(caller!), files[0], lang)),
        species_basis: 'prior' as const,
        species_note: renderMessage('scan_species_prior', lang),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/scan/confirm',
      tag: 'trees',
      access: 'user',
      feature: 'tree-scan',
      summary: 'Confirm the species of a scan; consumes the token and says where to identify',
      description:
        'Form (or JSON) `scan_token`, `species`. Succeeds only for your own unexpired, unused token and a species in its top_k. ' +
        "Every failure is 400 with ok:false and leaves the token as it was: `scan_token_invalid` (wrong, used, expired or another account's token) " +
        'or `scan_species_not_offered` (token fine, species not in top_k: pick again with the same token).',
      bodyType: 'form',
      body: z.object({ scan_token: z.string().min(1).max(200), species: z.string().trim().min(1).max(100) }),
      responses: {
        200: { description: 'token consumed', schema: ConfirmOut },
        400: errorResponse('bad, used, expired or foreign token, or species not in top_k; the token is unchanged'),
        401: errorResponse('not signed in'),
      },
      handler: async ({ body, caller }) => {
        const { species } = await s.scan.confirm(scopeOfCaller(caller!), body.scan_token, body.species);
        return { ok: true, consumed: true, species, next: { method: 'POST', path: '/api/identify', fields: { species } } };
      },
    }),
  ];
}
