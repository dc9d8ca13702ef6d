import { z } from 'zod';
import type { Services } from '../services/index.js';
import { Reply, defineRoute, reply, type RouteDef } from '../http/route.js';
import { Ok, errorResponse } from './schemas.js';
import { AnchorOut } from './timeline.route.js';
import { TreeRef } from './tree-ref.js';

const TreeParams = z.object({ tree_id: TreeRef });
const notYours = errorResponse('no such tree, or not yours (one answer)');

const EXPORT_DOC =
  'One JSON document with everything needed to re-check the tree offline, trusting nothing from this server: ' +
  '`record_cbor_base64` (the canonical DAG-CBOR record), `record` {cid, hash}, `images` {CID: base64 bytes} for the photos the record names, ' +
  "`events` (the tree's own chain), `proof` (inclusion of the enrolment event in the latest anchored root) and `anchor` (the signed checkpoint, or the signed Cardano transaction). " +
  'Save it and run `npm run verify -- tree.json` (format: shared/src/evidence/verify-cli/FORMAT.md; the bundle is unpacked into that folder layout). 409 until the chain has been anchored.';

/** A tree's evidence for its owner: provenance summary, export bundle, and blobs by CID. */
export function provenanceRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/provenance/{tree_id}',
      tag: 'trees',
      access: 'user',
      feature: 'provenance',
      summary: 'Evidence summary of one of your trees',
      description:
        'code, the image CIDs the canonical record names, record CID and hash, anchor status, and the true image count: ' +
        'photos added after the first enrolment are kept for recognition but are not in the anchored record, so `image_count` can exceed `record_image_count`.',
      params: TreeParams,
      responses: {
        200: {
          description: 'the summary',
          schema: Ok.extend({
            tree_id: z.string(),
            code: z.string(),
            record_cid: z.string(),
            record_hash: z.string(),
            images: z.array(z.string()),
            record_image_count: z.number().int(),
            image_count: z.number().int(),
            chain: z.object({ size: z.number().int(), root_hex: z.string() }),
            anchor_status: z.enum(['none', 'pending', 'submitted', 'confirmed', 'failed']),
            anchor: AnchorOut.nullable(),
          }),
        },
        401: errorResponse('not signed in'),
        404: notYours,
      },
      handler: async ({ params, caller }) => s.provenance.provenance(caller!, await s.treeRef(params.tree_id)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/provenance/{tree_id}/export',
      tag: 'trees',
      access: 'user',
      feature: 'provenance',
      summary: "Export a tree's evidence for the offline verifier (owner only)",
      description: EXPORT_DOC,
      params: TreeParams,
      responses: {
        200: {
          description: 'the evidence bundle',
          schema: Ok.extend({ format: z.literal('markless-evidence-bundle'), version: z.literal(1), tree_id: z.string() }).passthrough(),
        },
        401: errorResponse('not signed in'),
        404: notYours,
        409: errorResponse('the chain is not anchored yet'),
      },
      handler: async ({ params, caller }) =>
        reply(200, await s.provenance.exportBundle(caller!, await s.treeRef(params.tree_id)), {
          'Content-Disposition': `attachment; filename="evidence-${params.tree_id.replace(/[^A-Za-z0-9-]/g, '')}.json"`,
        }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/evidence/{entity_type}/{entity_id}/export',
      tag: 'evidence',
      access: 'user',
      feature: 'provenance',
      summary: "Export a fruit's or a farm boundary's evidence for the offline verifier (owner only)",
      description:
        'Only exists when EVIDENCE_FRUIT_AND_BOUNDARIES is on (off by default: fruit and boundaries are then server-only and this answers 404). ' +
        "Same bundle format as /api/provenance/{tree_id}/export, for the fruit's record or the farm's newest boundary record; `npm run verify` checks it.",
      params: z.object({ entity_type: z.enum(['fruit', 'farm']), entity_id: z.string().min(1).max(100) }),
      responses: {
        200: {
          description: 'the evidence bundle',
          schema: Ok.extend({
            format: z.literal('markless-evidence-bundle'),
            version: z.literal(1),
            entity_type: z.string(),
            entity_id: z.string(),
          }).passthrough(),
        },
        401: errorResponse('not signed in'),
        404: errorResponse('no such fruit or farm, not yours, or no record (server-only evidence)'),
        409: errorResponse('the chain is not anchored yet'),
      },
      handler: async ({ params, caller }) =>
        reply(200, await s.provenance.exportSideBundle(caller!, params.entity_type, params.entity_id), {
          'Content-Disposition': `attachment; filename="evidence-${params.entity_type}-${params.entity_id.replace(/[^A-Za-z0-9-]/g, '')}.json"`,
        }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/blobs/{cid}',
      tag: 'trees',
      access: 'optional',
      feature: 'provenance',
      summary: 'A stored photo or video by its CID (read-only)',
      description:
        'The bytes whose Kubo CIDv1 (`ipfs add --cid-version=1`) is `cid`. Served to the owner of an image with that CID, and to anyone for photos named in the record of a public (published) tree or of a published fruit. Otherwise 404.',
      params: z.object({ cid: z.string().min(1).max(200) }),
      responses: {
        200: { description: 'the bytes', contentType: 'application/octet-stream' },
        404: errorResponse('no such blob, or not yours'),
      },
      handler: async ({ params, caller }) => {
        const blob = await s.provenance.blob(caller, params.cid);
        return new Reply(
          200,
          blob.stream,
          {
            'Content-Type': blob.contentType,
            'Content-Length': String(blob.size),
            ETag: `"${params.cid}"`,
            // Content-addressed: these bytes can never change under this name.
            'Cache-Control': 'private, max-age=31536000, immutable',
          },
          true,
        );
      },
    }),
  ];
}
