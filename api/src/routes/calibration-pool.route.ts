import { z } from 'zod';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse as err } from './schemas.js';

const Cell = z.object({
  kind: z.enum(['tree', 'fruit', 'animal']),
  engine_version: z.string(),
  species: z.string().describe("the pool's one species, or `*` for every species of the kind"),
  band: z.enum(['small', 'large']).describe('herd (or pool) size band: `large` from 12 individuals'),
});
const Version = Cell.extend({
  id: z.number().int(),
  status: z.enum(['shadow', 'serving', 'retired', 'rolled_back', 'refused']),
  params: z.record(z.string(), z.unknown()).nullable().describe('the fused model and thresholds; null when refused'),
  report: z
    .record(z.string(), z.unknown())
    .describe(
      'owners, samples, effective samples, the threshold, its false-match bound, the threshold with every owner and with each one removed, the several-photo thresholds, and `set_aside`: owners whose labels disagreed with the others (account id and username), left out of the fit',
    ),
  shadow: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      "how this version and the one serving before answered each owner's newest answers of each outcome and number of photos, which the fit did not read: `held_back`, then per version `samples`, `false_matches` and `correct_match_rate` for single photos and `several` (the same, per number of photos the version vouches for)",
    ),
  created_at: z.string(),
  promoted_at: z.string().nullable(),
  retired_at: z.string().nullable(),
});
const IdParams = z.object({ id: z.coerce.number().int().min(1) });
const denied = { 401: err('not signed in'), 403: err('signed in, but not an administrator') };
const admin = { tag: 'admin', access: 'admin', feature: 'admin' } as const;
const Sharing = Ok.extend({
  contribute: z.boolean().describe("whether your labelled answers' scores join the pooled calibration"),
  samples: z.number().int().describe('your samples in the pool now'),
});

/**
 * The calibration pooled across owners (docs/recognition.md): the operator's versions, and each
 * owner's choice to contribute.
 */
export function calibrationPoolRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/admin/calibration/pooled/run',
      summary: 'Fit the pooled calibration now: gather new labelled answers, fit each cell, shadow-score, promote what keeps its bound',
      responses: {
        200: {
          description: 'one entry per cell fitted',
          schema: Ok.extend({
            gathered: z.number().int().describe('labelled answers turned into samples by this run'),
            cells: z.array(z.object({ cell: Cell, id: z.number().int(), status: z.string(), reason: z.string().nullable() })),
          }),
        },
        ...denied,
        409: err('pooling is turned off on this server (CALIBRATION_POOLING=false)'),
      },
      handler: async ({ caller }) => ({ ok: true, ...(await s.calibrationPool.run(caller!.account_id)) }),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/admin/calibration/pooled',
      summary: 'Every version of the pooled calibration, newest first, with what it rested on and whom it set aside',
      responses: { 200: { description: 'versions', schema: Ok.extend({ versions: z.array(Version) }) }, ...denied },
      handler: async () => ({ ok: true, versions: (await s.calibrationPool.list()) as z.infer<typeof Version>[] }),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/admin/calibration/pooled/{id}/promote',
      params: IdParams,
      summary: "Make a version its cell's serving one (the one serving before is retired)",
      responses: {
        200: { description: 'serving', schema: Ok.extend({ id: z.number().int(), status: z.literal('serving') }) },
        ...denied,
        404: err('no such version, or one that vouched for nothing'),
      },
      handler: async ({ params }) => ({ ok: true, ...(await s.calibrationPool.promote(params.id)) }),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/admin/calibration/pooled/{id}/rollback',
      params: IdParams,
      summary: 'Roll the serving version back; the one it replaced serves again, or none',
      responses: {
        200: {
          description: 'rolled back',
          schema: Ok.extend({
            id: z.number().int(),
            status: z.literal('rolled_back'),
            serving: z.number().int().nullable().describe('the version serving now, or null: the kind calibration decides'),
          }),
        },
        ...denied,
        404: err('no such version'),
        409: err('the version is not the serving one'),
      },
      handler: async ({ params }) => ({ ok: true, ...(await s.calibrationPool.rollback(params.id)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/account/calibration-sharing',
      tag: 'accounts',
      access: 'user',
      feature: 'accounts',
      summary: "Whether your labelled answers' scores join the calibration pooled across owners",
      responses: { 200: { description: 'your choice', schema: Sharing }, 401: err('not signed in') },
      handler: async ({ caller }) => ({ ok: true, ...(await s.calibrationPool.sharing(scopeOfCaller(caller!))) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/account/calibration-sharing',
      tag: 'accounts',
      access: 'user',
      feature: 'accounts',
      bodyType: 'json',
      body: z.object({ contribute: z.boolean() }),
      summary:
        "Opt in or out of contributing to the pooled calibration. Opting out deletes the samples your answers became; you still decide with the pool's calibration",
      responses: {
        200: {
          description: 'stored',
          schema: Ok.extend({ contribute: z.boolean(), deleted: z.number().int().describe('samples deleted by opting out') }),
        },
        401: err('not signed in'),
        422: err('the body is not {"contribute": true|false}'),
      },
      handler: async ({ caller, body }) => ({ ok: true, ...(await s.calibrationPool.setSharing(scopeOfCaller(caller!), body.contribute)) }),
    }),
  ];
}
