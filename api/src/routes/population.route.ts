import { z } from 'zod';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { sniffMedia } from '../../../shared/src/domain/media.js';
import type { Services } from '../services/index.js';
import type { StoredMedia } from '../services/media.service.js';
import { ALERT_WINDOW_HOURS, DEFAULT_STALE_DAYS } from '../../../shared/src/population/population-rules.js';
import { defineRoute, reply, type RouteDef } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { Ok, errorResponse } from './schemas.js';

const FarmId = z.string().trim().min(1).max(100);
const CountRequest = z
  .object({
    farm_id: FarmId.describe('a farm of yours: one you enrolled an animal into'),
    zone: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .describe(
        'the part of the farm counted (a pasture, a barn); animals enrolled with this `zone` are its enrolled head, or the whole farm when no animal names a zone',
      ),
    count: z.coerce.number().int().min(0).max(1_000_000).describe('head counted'),
    method: z.enum(['visual', 'photo', 'video', 'drone', 'gate', 'other']).describe('how the count was made'),
    note: z.string().trim().max(500).optional(),
    stale_after_days: z.coerce
      .number()
      .int()
      .min(1)
      .max(365)
      .default(DEFAULT_STALE_DAYS)
      .describe(`an enrolled animal not re-identified for this many days raises \`not_seen\` (default ${DEFAULT_STALE_DAYS})`),
  })
  .describe('CountRequest: JSON, or multipart/form-data with the same fields plus `files` (photos, or one video)')
  .meta({ title: 'CountRequest' });

const Rule = z
  .enum(['below_enrolled', 'sudden_drop', 'not_seen'])
  .describe(
    "`below_enrolled`: the count is below the enrolled head of the zone. `sudden_drop`: at least 20% (and one head) below the median of the zone's last 5 counts within 30 days. " +
      '`not_seen`: an enrolled animal has not been re-identified (no stored identify result naming it, no identify_verdict confirming it) for `stale_after_days` days; raised once while open.',
  );
export const AlertOut = z
  .object({
    alert_id: z.string(),
    farm_id: z.string(),
    zone: z.string(),
    rule: Rule,
    message: z.string().describe("a complete sentence in the caller's language (Vietnamese by default)"),
    animal_did: z.string().nullable().describe('the animal a `not_seen` alert is about'),
    facts: z
      .record(z.string(), z.unknown())
      .describe('the numbers behind the alert: counted, enrolled, missing, baseline, recent, last_seen_at, days_unseen'),
    count_id: z.string().describe('the count that raised it'),
    created_at: z.string(),
    resolved_at: z.string().nullable(),
    resolved_note: z.string().nullable(),
  })
  .describe('AlertOut: one population alert')
  .meta({ title: 'AlertOut' });
const CountResponse = Ok.extend({
  count_id: z.string(),
  farm_id: z.string(),
  zone: z.string(),
  count: z.number().int(),
  method: z.string(),
  media: z
    .array(z.object({ cid: z.string(), content_type: z.string() }))
    .describe('the photos or video stored with the count, by CID (readable at /api/blobs/{cid})'),
  created_at: z.string(),
  enrolled: z.number().int().describe('enrolled animals the zone is compared against'),
  baseline: z.number().nullable().describe("median of the zone's recent counts before this one"),
  alerts: z.array(AlertOut).describe('alerts this count raised'),
})
  .describe('CountResponse: the stored count and the alerts it raised')
  .meta({ title: 'CountResponse' });
const ZoneOut = z.object({
  zone: z.string(),
  status: z.enum(['ok', 'alert', 'not_counted']).describe('`alert` while the zone has an unresolved alert of the last 48 hours'),
  latest_count: z.number().int().nullable(),
  method: z.string().nullable(),
  counted_at: z.string().nullable(),
  enrolled: z.number().int(),
  open_alerts: z.number().int(),
});
const DashboardOut = Ok.extend({
  farm_id: z.string(),
  total_head: z.number().int().nullable().describe("sum of each zone's latest count; null before the first count"),
  enrolled_head: z.number().int().describe('animals enrolled in the farm'),
  open_alerts: z.number().int(),
  zones: z.array(ZoneOut),
});
const AlertsOut = Ok.extend({ farm_id: z.string(), window_hours: z.literal(ALERT_WINDOW_HOURS), alerts: z.array(AlertOut) });
const ResolveOut = Ok.extend({ alert: AlertOut });
const notYours = { 401: errorResponse('not signed in'), 404: errorResponse('no such farm, or not yours (the same answer)') };

/** Photos, or one video: all files of one class. */
function mediaClass(files: UploadedFile[]): 'image' | 'video' {
  const classes = new Set(files.map((f) => sniffMedia(f.bytes)?.cls ?? 'image'));
  if (classes.size > 1 || (classes.has('video') && files.length > 1)) throw new AppError(422, 'population_media_mixed', { field: 'files' });
  return classes.has('video') ? 'video' : 'image';
}

/** Population counting: counts with alerts, the farm dashboard, and the alerts list with resolve. */
export function populationRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/population/count',
      tag: 'population',
      access: 'user',
      feature: 'population',
      summary: 'Record a head count for a zone of your farm; the answer lists the alerts it raised',
      description:
        "Farm owner only. JSON CountRequest, or multipart/form-data with the same fields and `files`: up to 10 photos, or one video. A stranger's farm is 404.",
      bodyType: 'json',
      body: CountRequest,
      upload: { field: 'files', maxFiles: 10, kind: 'video' },
      responses: {
        200: { description: 'the stored count and its alerts', schema: CountResponse },
        ...notYours,
        422: errorResponse('a field is missing or wrong; `detail` names it'),
      },
      handler: async ({ body, files, caller, lang }) => {
        const record = (media: StoredMedia[]) => s.population.count(scopeOfCaller(caller!), body, media, lang);
        const out = files.length ? await s.media.withUploads(files, mediaClass(files), 'files', record) : await record([]);
        return { ok: true, ...out };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/population/farm/{farm_id}',
      tag: 'population',
      access: 'user',
      feature: 'population',
      summary: "Population dashboard of your farm: total head count and each zone's status",
      params: z.object({ farm_id: FarmId }),
      responses: { 200: { description: 'the dashboard', schema: DashboardOut }, ...notYours },
      handler: async ({ params, caller }) => ({ ok: true, ...(await s.population.dashboard(scopeOfCaller(caller!), params.farm_id)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/population/alerts/{farm_id}',
      tag: 'population',
      access: 'user',
      feature: 'population',
      summary: `Unresolved population alerts of your farm raised in the last ${ALERT_WINDOW_HOURS} hours`,
      params: z.object({ farm_id: FarmId }),
      responses: { 200: { description: 'alerts, newest first', schema: AlertsOut }, ...notYours },
      handler: async ({ params, caller, lang }) =>
        reply(
          200,
          {
            ok: true,
            farm_id: params.farm_id,
            window_hours: ALERT_WINDOW_HOURS,
            alerts: await s.population.alerts(scopeOfCaller(caller!), params.farm_id, lang),
          },
          { 'Cache-Control': 'no-store' },
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/api/population/alerts/{alert_id}/resolve',
      tag: 'population',
      access: 'user',
      feature: 'population',
      summary: 'Mark one of your population alerts resolved (it leaves the alerts list); idempotent',
      params: z.object({ alert_id: z.string().min(1).max(100) }),
      bodyType: 'json',
      body: z.object({ note: z.string().trim().max(500).optional().describe('what was found') }),
      responses: { 200: { description: 'the resolved alert', schema: ResolveOut }, ...notYours },
      handler: async ({ params, body, caller, lang }) => ({
        ok: true,
        alert: await s.population.resolve(scopeOfCaller(caller!), params.alert_id, body.note, lang),
      }),
    }),
  ];
}
