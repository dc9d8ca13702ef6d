import { z } from 'zod';
import { renderMessage } from '../../../shared/src/domain/messages.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, Paged, errorResponse as err } from './schemas.js';

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('page size, 1 to 500 (default 100)'),
  offset: z.coerce.number().int().min(0).default(0).describe('items to skip (default 0)'),
});

export const AdminFeedbackOut = Paged.extend({
  items: z.array(
    z.object({
      id: z.string().uuid(),
      note: z.string(),
      created_at: z.string(),
      has_owner: z.boolean().describe('whether a signed-in account sent it; the account itself is never shown'),
    }),
  ),
});
export const AdminActivityOut = Ok.extend({
  total_users: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  skipped: z.number().int().describe('events with no owner, left out of the summary'),
  note: z.string().optional().describe('present when events were skipped; says how many'),
  users: z
    .array(
      z.object({
        account_id: z.string().uuid(),
        username: z.string().nullable().describe('null when the account no longer exists'),
        events: z.number().int(),
        actions: z.record(z.string(), z.number().int()).describe('event count per action'),
        first_seen: z.string(),
        last_seen: z.string(),
      }),
    )
    .describe('most recently active first'),
});
export const EventsOut = Paged.extend({
  items: z
    .array(
      z.object({
        id: z.number().int(),
        owner_id: z.string().uuid().nullable(),
        action: z.string(),
        detail: z.record(z.string(), z.unknown()),
        created_at: z.string(),
      }),
    )
    .describe('newest first'),
});

const denied = { 401: err('not signed in'), 403: err('signed in, but not an administrator'), 422: err('bad limit or offset') };
const adminRoute = { tag: 'admin', access: 'admin', feature: 'admin', query: PageQuery } as const;

export function adminRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      ...adminRoute,
      method: 'get',
      path: '/api/admin/feedback',
      summary: 'Farmer feedback, newest first, without the sender',
      responses: { 200: { description: 'one page of feedback', schema: AdminFeedbackOut }, ...denied },
      handler: async ({ query }) => ({ ok: true, ...query, ...(await s.admin.feedback(query)) }),
    }),
    defineRoute({
      ...adminRoute,
      method: 'get',
      path: '/api/admin/activity',
      summary: 'Per-user activity summary: counts by action, first and last seen',
      description: 'Events with no owner cannot be attributed to a user; they are skipped, counted in `skipped` and flagged in `note`.',
      responses: { 200: { description: 'one page of users', schema: AdminActivityOut }, ...denied },
      handler: async ({ query, lang }) => {
        const report = await s.admin.activity(query);
        const note = report.skipped > 0 ? renderMessage('activity_unowned_skipped', lang, { count: report.skipped }) : undefined;
        return { ok: true, ...query, ...report, ...(note ? { note } : {}) };
      },
    }),
    defineRoute({
      ...adminRoute,
      method: 'get',
      path: '/api/events',
      summary: 'The full activity event log, newest first (internals; admin only)',
      responses: { 200: { description: 'one page of events', schema: EventsOut }, ...denied },
      handler: async ({ query }) => ({ ok: true, ...query, ...(await s.admin.events(query)) }),
    }),
  ];
}
