import { z } from 'zod';
import { MARKETS } from '../../../shared/src/domain/residue/limits.js';
import { UNITS, VERDICTS } from '../../../shared/src/domain/residue/interpret.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse as err } from './schemas.js';

const Measurement = z.object({
  analyte: z.string().trim().min(1).max(200).describe('residue name as the lab writes it (name, synonym, CAS or Vietnamese spelling)'),
  value: z.number().finite().min(0),
  unit: z.enum(UNITS),
  commodity: z.string().max(200).optional(),
});
export const InterpretIn = z.object({
  commodity: z.string().max(200).optional().describe('e.g. rice, mango, shrimp'),
  region: z.string().max(200).optional().describe('province or district, echoed in cadmium_risk'),
  measurements: z.array(Measurement).min(1).max(200),
});
export const InterpretByStampsIn = z.object({
  stamps: z.array(z.string().trim().min(1).max(200)).min(1).max(50).describe('stamp ids of the external measurement store'),
  commodity: z.string().max(200).optional(),
  region: z.string().max(200).optional(),
});
const Source = z.object({ title: z.string(), article: z.string(), date: z.string(), url: z.string() });
const InterpretOut = Ok.extend({
  verdict: z
    .enum(VERDICTS)
    .describe(
      "SAFE, CAUTION (near a limit), WARNING (over an export market's limit only), DANGER (over the Vietnamese or Codex limit, or banned), UNKNOWN (cannot judge; fail-closed)",
    ),
  alert: z.string().describe('one friendly sentence for the farmer'),
  export_advisory: z.array(
    z.object({
      market: z.enum(MARKETS),
      name: z.string(),
      role: z.enum(['domestic', 'reference', 'export']),
      status: z.enum(['ok', 'caution', 'not_allowed', 'unknown']),
      advice: z.string(),
    }),
  ),
  residues: z
    .array(
      z.object({
        analyte: z.string(),
        name: z.string(),
        commodity: z.string().nullable(),
        markets: z.array(
          z.object({
            market: z.enum(MARKETS),
            status: z.enum(['within', 'near', 'over', 'banned', 'no_limit']),
            limit_mg_kg: z.number().optional(),
            limit_kind: z.string().optional().describe('mrl, rpa (EU reference point for action) or ml (contaminant maximum level)'),
            source: Source.optional(),
          }),
        ),
      }),
    )
    .describe("each residue against each market's limit, with the limit's source (no scores, no margins)"),
  cadmium_risk: z
    .object({ region: z.string().nullable(), level: z.enum(['low', 'medium', 'high']) })
    .optional()
    .describe('present when cadmium was measured'),
});

/**
 * Residue interpretation (read-only). Note B leaves authentication open; chosen here:
 * interpret is public (a pure function of the body: nothing read, nothing kept), while
 * interpret-by-stamps needs a token because it makes this server call the measurement store.
 */
export function residueRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/residue/interpret',
      tag: 'residue',
      access: 'public',
      feature: 'residue',
      summary: 'Interpret measured residues: five-level verdict, farmer alert, export advisory per market',
      description:
        'JSON InterpretIn. Limits: Codex, EU and Vietnam, each with its source. Public (no token): nothing is measured, anchored, written or kept.',
      body: InterpretIn,
      responses: { 200: { description: 'the interpretation', schema: InterpretOut }, 422: err('missing field or wrong type') },
      handler: async ({ body, lang }) => ({ ok: true, ...(await s.residue.interpret(body, lang)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/residue/interpret-by-stamps',
      tag: 'residue',
      access: 'user',
      feature: 'residue',
      summary: 'Interpret the measurements behind stamp ids, fetched from the external store; any failure gives UNKNOWN',
      description:
        'JSON InterpretByStampsIn. Measurements are fetched server-side from RESIDUE_STORE_URL (`GET /stamps/{id}`). When resolving fails for any reason ' +
        '(no store configured, unreachable, cut mid-answer, timeout, malformed answer, unknown stamp) the verdict is UNKNOWN with `resolved: false`: fail-closed, not an error. Token required.',
      body: InterpretByStampsIn,
      responses: {
        200: {
          description: 'the interpretation',
          schema: InterpretOut.extend({ resolved: z.boolean().describe('false: the store failed and the verdict is UNKNOWN') }),
        },
        401: err('not signed in'),
        422: err('missing field or wrong type'),
      },
      handler: async ({ body, lang }) => ({ ok: true, ...(await s.residue.interpretByStamps(body, lang)) }),
    }),
  ];
}
