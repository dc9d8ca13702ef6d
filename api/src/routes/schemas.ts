import { z } from 'zod';

/** Shapes shared by many routes. */
export const Ok = z.object({ ok: z.literal(true) });
export const ErrorBody = z.object({
  ok: z.literal(false),
  error: z.string().describe('a complete sentence, Vietnamese by default, English with Accept-Language: en'),
  detail: z.string().describe('the field that failed, or the same text'),
  code: z.string().describe('stable machine-readable code'),
});
export const errorResponse = (description: string) => ({ description, schema: ErrorBody });
