import { z } from 'zod';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse } from './schemas.js';

const Position = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]).describe('[lon, lat] in degrees');
const Ring = z
  .array(Position)
  .min(4)
  .max(5000)
  .refine((r) => r[0]![0] === r.at(-1)![0] && r[0]![1] === r.at(-1)![1], 'a ring must end where it starts');
const Polygon = z.object({ type: z.literal('Polygon'), coordinates: z.array(Ring).min(1).max(20) }).describe('GeoJSON Polygon');

const BoundaryOut = Ok.extend({
  farm_id: z.string(),
  boundary: Polygon.nullable(),
  updated_at: z.string().nullable(),
  evidence: z
    .enum(['server_only', 'recorded'])
    .describe(
      '`server_only` (default, as on the live service): kept on this server only, never pinned or anchored. `recorded` when EVIDENCE_FRUIT_AND_BOUNDARIES is on: ' +
        "this version has a canonical DAG-CBOR record (coordinates as integer microdegrees) tied into the farm's chain, which the anchor route can anchor.",
    ),
  record_cid: z.string().optional(),
  record_hash: z.string().optional(),
});
const FarmId = z.object({ farm_id: z.string().trim().min(1).max(100) });
const notYours = { 401: errorResponse('not signed in'), 404: errorResponse('no such farm, or not yours (the same answer)') };

export function farmRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'put',
      path: '/api/farm/{farm_id}/boundary',
      tag: 'farms',
      access: 'user',
      feature: 'farm-boundary',
      summary: "Set a farm's boundary (a GeoJSON Polygon); stored on the server only unless the evidence switch is on",
      description:
        'JSON {boundary: {type: "Polygon", coordinates: [[[lon, lat], ...]]}}. The farm is yours if you enrolled its first individual, or, for a farm nobody has enrolled into, if you are the first to set its boundary.',
      params: FarmId,
      bodyType: 'json',
      body: z.object({ boundary: Polygon }),
      responses: {
        200: { description: 'stored', schema: BoundaryOut },
        ...notYours,
        422: errorResponse('not a closed GeoJSON Polygon; `detail` names the field'),
      },
      handler: async ({ params, body, caller }) => ({
        ok: true,
        ...(await s.farms.put(scopeOfCaller(caller!), params.farm_id, body.boundary)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/farm/{farm_id}/boundary',
      tag: 'farms',
      access: 'user',
      feature: 'farm-boundary',
      summary: "A farm's boundary and how far its evidence goes",
      params: FarmId,
      responses: { 200: { description: 'the boundary (null when none is set)', schema: BoundaryOut }, ...notYours },
      handler: async ({ params, caller }) => ({ ok: true, ...(await s.farms.get(scopeOfCaller(caller!), params.farm_id)) }),
    }),
  ];
}
