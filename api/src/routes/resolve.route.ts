import { z } from 'zod';
import { AppError } from '../../../shared/src/domain/errors.js';
import type { Services } from '../services/index.js';
import { defineRoute, raw, reply, type RouteDef } from '../http/route.js';
import { servePage } from '../web/static-files.js';
import { Ok, errorResponse } from './schemas.js';
import { EvidenceBundle } from './evidence.schemas.js';
import { TreeRef } from './tree-ref.js';
import { GROWER_NAME_MAX } from '../services/resolve.service.js';
import { traceLabelSvg } from '../services/trace-label.js';

const CodeParam = z.object({ code: z.string().min(1).max(200).describe('traceability code, `<PREFIX>-<geohash7>-<8 characters>`') });
const TreeParam = z.object({ id: TreeRef });

const Anchor = z
  .object({
    backend: z.enum(['local', 'cardano']),
    status: z.string(),
    size: z.number().int(),
    root_hex: z.string(),
    public_key: z.string().nullable().describe('local: did:key of the key that signed the checkpoint'),
    key_fingerprint: z.string().nullable().describe('local: `SHA256:xxxx xxxx …`, compare with /.well-known/markless.json'),
    checkpoint_seq: z.number().int().nullable(),
    tx_hash: z.string().nullable(),
    confirmations: z.number().int(),
    explorer_url: z.string().nullable(),
    text: z
      .object({ vi: z.string(), en: z.string() })
      .describe(
        'what the anchor really is, in one sentence: "signed by this server\'s key (fingerprint …)" or "Cardano transaction … (N confirmations)"',
      ),
  })
  .describe("the newest usable anchor of the tree's chain");
const Words = z.object({ vi: z.string(), en: z.string() });
const Place = z
  .object({
    province: Words.describe('the province or centrally run city (boundaries of the 2025 merger), e.g. Lâm Đồng'),
    region: Words.describe('the region it lies in, e.g. Tây Nguyên / Central Highlands'),
  })
  .describe(
    "where the tree grows in words, worked out offline from the code's own geohash: the province whose former (pre-2025) province's middle is nearest. " +
      'An area, never an address: near a border it may name the neighbour. Null without a location or outside Vietnam',
  );
const GrowerOut = Ok.extend({
  public_name: z.string().nullable().describe('the name shoppers read as the grower on your published trees; null when none'),
});
const PublicOut = Ok.extend({
  state: z.literal('public'),
  code: z.string(),
  link: z.string().describe('the human page, `/t/{code}`'),
  tree_id: z.string().describe('the tree, for its public timeline (`GET /api/tree/{tree_id}/timeline`)'),
  record: z
    .object({
      code: z.string(),
      species: z.string(),
      geohash: z.string().describe('coarse location, 7 characters (about 150 m)'),
      images: z.array(z.string()).describe('CIDs of the photos in the anchored record'),
      created_at: z.string(),
      schema: z.number().int(),
    })
    .describe('the canonical record, decoded from the bytes whose CID and hash follow'),
  record_cid: z.string(),
  record_hash: z.string().describe('SHA-256 of the record bytes, hex'),
  image_count: z.number().int().describe('photos the server holds; may exceed record.images (later photos are not anchored)'),
  name: z.string().nullable(),
  farm_id: z.string().nullable(),
  has_location: z
    .boolean()
    .describe(
      'false when the tree was enrolled without lat/lon: the code and record then carry the explicit "no location" geohash `0000000` (codes minted before 2026-11: `s000000`)',
    ),
  anchor: Anchor.nullable(),
  species_name: Words.nullable().describe(
    "the species in words from the catalogue (the tree's current species, else the record's); null when none was given or it is not in the catalogue",
  ),
  place: Place.nullable(),
  grower_name: z.string().nullable().describe("the grower's public name (`PUT /api/me/public-name`); null when the owner published none"),
});
const RestrictedOut = Ok.extend({
  state: z.literal('restricted'),
  code: z.string(),
  link: z.string(),
  summary: z.object({ species: z.string().nullable(), enrolled_on: z.string(), record_hash: z.string(), anchored: z.boolean() }),
});
const VisibilityOut = Ok.extend({
  tree_id: z.string(),
  visibility: z.enum(['private', 'restricted', 'public']),
  code: z.string().nullable(),
  link: z.string().nullable().describe('`/t/{code}` while the code resolves, else null'),
});

/** The unknown answer: thrown, so the one error handler renders it like every other 404, with no reason. */
const unknownCode = () => new AppError(404, 'code_unknown', {}, { 'Cache-Control': 'no-store' });

/**
 * Public traceability lookup and the owner's switch for it. The API route and the page call the
 * same `resolve.decide`, so they can never disagree about what a code reveals.
 */
export function resolveRoutes(s: Services): RouteDef[] {
  const owner = {
    method: 'post',
    tag: 'traceability',
    access: 'user',
    feature: 'traceability-publish',
    params: TreeParam,
    description: 'Owner only. A grantee gets 403; anyone else, and a missing tree, the same 404.',
    responses: {
      200: { description: 'the new visibility', schema: VisibilityOut },
      401: errorResponse('not signed in'),
      403: errorResponse('a grantee, not the owner'),
      404: errorResponse('no such tree, or not yours'),
    },
  } as const;
  return [
    defineRoute({
      method: 'get',
      path: '/api/resolve/{code}/export',
      tag: 'traceability',
      access: 'public',
      feature: 'traceability',
      summary: "A published tree's evidence bundle, for anyone to re-check offline",
      description:
        'The same `markless-evidence-bundle` the owner exports (format: shared/src/evidence/verify-cli/FORMAT.md and the EvidenceBundle schema): ' +
        'record bytes, the photos it names, the own chain, a proof of the enrolment event and the anchor. Check it with ' +
        '`npm run verify -- bundle.json --expect <code> --trust-key <key from /.well-known/markless.json>` (or `--online <Blockfrost URL>` for a Cardano anchor). ' +
        'Only for published trees; anything else is the same 404 as an unknown code. 409 while the chain is not anchored.',
      params: CodeParam,
      responses: {
        200: { description: 'the evidence bundle', schema: EvidenceBundle.extend({ ok: z.literal(true), code: z.string() }) },
        404: errorResponse('unknown code, or the tree is not published'),
        409: errorResponse('the chain is not anchored yet'),
      },
      handler: async ({ params }) => s.provenance.publicExport(params.code),
    }),
    defineRoute({
      method: 'get',
      path: '/api/resolve/{code}',
      tag: 'traceability',
      access: 'public',
      feature: 'traceability',
      summary: 'Look up a traceability code: public record, restricted summary, or unknown',
      description:
        'State `public`: the canonical record plus the link `/t/{code}`. `restricted`: a summary card with no images and no coordinates. ' +
        'Anything else (a wrong code, or a correct code whose owner keeps it private) is the same fixed 404 body, so codes cannot be enumerated.',
      params: CodeParam,
      responses: {
        200: { description: 'public or restricted (see `state`)', schema: z.union([PublicOut, RestrictedOut]) },
        404: errorResponse('unknown: the fixed body, identical for wrong and private codes'),
      },
      handler: async ({ params }) => {
        const r = await s.resolve.decide(params.code);
        if (r.state === 'unknown') throw unknownCode();
        return reply(200, { ok: true, ...r }, { 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/t/{code}',
      tag: 'traceability',
      access: 'public',
      feature: 'traceability',
      summary:
        'Human page for a traceability code (HTML): photos, timeline, a coarse map of the geohash cell and what the anchor is; same decision as /api/resolve/{code}',
      params: CodeParam,
      responses: {
        200: { description: 'public record or restricted card', contentType: 'text/html' },
        404: { description: 'the fixed not-found page', contentType: 'text/html' },
      },
      handler: async ({ params }) => {
        // The page is one fixed shell that renders /api/resolve/{code}; the status comes from the
        // same decision, and an unknown code gets the one fixed not-found page.
        const r = await s.resolve.decide(params.code);
        return r.state === 'unknown' ? servePage('not-found.html', 404) : servePage('trace.html', 200, { ok: true, ...r });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/t/{code}/label.svg',
      tag: 'traceability',
      access: 'public',
      feature: 'traceability',
      summary: 'A printable label (SVG, 50 × 60 mm): a QR code of the absolute address of /t/{code} and the code printed under it',
      description:
        'Same decision as /api/resolve/{code}: a public or restricted code gets its label; a wrong, malformed or private code the same fixed 404 body. ' +
        "The address in the QR is this request's own origin (behind a proxy with TRUST_PROXY, the forwarded one) and the code as stored.",
      params: CodeParam,
      responses: {
        200: { description: 'the label', contentType: 'image/svg+xml' },
        404: errorResponse('unknown: the fixed body of /api/resolve/{code}'),
      },
      handler: async ({ params }, ctx) => {
        const r = await s.resolve.decide(params.code);
        if (r.state === 'unknown') throw unknownCode();
        // Our own origin from protocol and host, as the cookie check reads it (ctx.origin can be the client's Origin).
        const svg = await traceLabelSvg(r.code, `${ctx.protocol}://${ctx.host}${r.link}`);
        return raw(200, svg, 'image/svg+xml; charset=utf-8', {
          'Cache-Control': 'no-store',
          // Opened on its own the SVG is a document of this origin: nothing in it may run or load.
          'Content-Security-Policy': "default-src 'none'",
          'X-Content-Type-Options': 'nosniff',
          'Content-Disposition': `inline; filename="${r.code.replace(/[^A-Za-z0-9-]/g, '_')}.svg"`,
        });
      },
    }),
    ...growerRoutes(s),
    defineRoute({
      ...owner,
      path: '/api/tree/{id}/publish',
      summary: 'Publish a tree: its code resolves to the full record, or with level=restricted to a summary card',
      bodyType: 'form',
      body: z.object({ level: z.enum(['public', 'restricted']).default('public').describe('what the code reveals; default `public`') }),
      handler: async ({ params, body, caller }) => ({
        ok: true,
        ...(await s.trees.setVisibility(caller!.account_id, await s.treeRef(params.id), body.level)),
      }),
    }),
    defineRoute({
      ...owner,
      path: '/api/tree/{id}/unpublish',
      summary: 'Unpublish a tree: its code answers exactly like a wrong code again',
      handler: async ({ params, caller }) => ({
        ok: true,
        ...(await s.trees.setVisibility(caller!.account_id, await s.treeRef(params.id), 'private')),
      }),
    }),
  ];
}

/** The grower's public name: read and set by the signed-in account, shown on its published trees' pages. */
function growerRoutes(s: Services): RouteDef[] {
  const common = { path: '/api/me/public-name', tag: 'traceability', access: 'user', feature: 'traceability-publish' } as const;
  return [
    defineRoute({
      ...common,
      method: 'get',
      summary: 'Your public name as a grower (null when none is published)',
      responses: { 200: { description: 'the name', schema: GrowerOut }, 401: errorResponse('not signed in') },
      handler: async ({ caller }) => ({ ok: true, ...(await s.resolve.growerName(caller!.account_id)) }),
    }),
    defineRoute({
      ...common,
      method: 'put',
      summary: 'Publish the name shoppers read as the grower on the pages of your published trees; an empty name withdraws it',
      description: 'Cleaned like a tree name (no markup, control or bidi characters). The username is never shown in its place.',
      body: z.object({
        public_name: z.string().max(GROWER_NAME_MAX).describe(`at most ${GROWER_NAME_MAX} characters; empty withdraws it`),
      }),
      responses: {
        200: { description: 'the name now published', schema: GrowerOut },
        401: errorResponse('not signed in'),
        422: errorResponse('longer than the limit, or not a string'),
      },
      handler: async ({ caller, body }) => ({ ok: true, ...(await s.resolve.setGrowerName(caller!.account_id, body.public_name)) }),
    }),
  ];
}
