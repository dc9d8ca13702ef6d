import { z } from 'zod';

/** Shapes shared by many routes. */
export const Ok = z.object({ ok: z.literal(true) });
export const ErrorBody = z.object({
  ok: z.literal(false),
  error: z.string().describe('a complete sentence, Vietnamese by default, English with Accept-Language: en'),
  detail: z.string().describe('the field that failed, or the same text'),
  code: z.string().describe('stable machine-readable code'),
  request_id: z.string().optional().describe('the X-Request-Id of this request, to quote when asking for help'),
  reason: z.string().optional().describe('machine-readable reason of a validation failure'),
  reasons: z.array(z.string()).optional().describe('machine-readable reason codes, e.g. too_blurred'),
});
export const errorResponse = (description: string) => ({ description, schema: ErrorBody });
