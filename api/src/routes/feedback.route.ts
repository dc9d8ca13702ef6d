import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse as err } from './schemas.js';

/** Long enough for a real complaint, short enough that the table cannot be used as free storage. */
export const NOTE_MAX_CHARS = 4000;

export const FeedbackBody = z.object({
  note: z.string().max(NOTE_MAX_CHARS).describe('free text; surrounding whitespace is stripped and an empty note is refused'),
});
export const FeedbackOut = Ok.extend({
  id: z.string().uuid(),
  created_at: z.string(),
});

export function feedbackRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/feedback',
      tag: 'feedback',
      access: 'optional',
      feature: 'feedback',
      summary: 'Send a feedback note (signed in or not)',
      description:
        'Urlencoded form with `note`. When a bearer token or session cookie comes along, the note is recorded as that ' +
        "account's; otherwise it is anonymous. Stores one row and one activity event.",
      body: FeedbackBody,
      bodyType: 'form',
      responses: {
        200: { description: 'stored', schema: FeedbackOut },
        422: err('note missing, too long, or empty after stripping whitespace (`feedback_empty`); detail is `note`'),
      },
      handler: async ({ body, caller }) => ({ ok: true, ...(await s.feedback.submit(caller?.account_id ?? null, body.note)) }),
    }),
  ];
}
