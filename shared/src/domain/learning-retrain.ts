/**
 * What a learning run records about the retrain after adoption (issue 41, item 3): the gate
 * judges a fine-tuned backbone trained without its held-out photos, and once it adopts, the same
 * recipe trains again on every photo (workers/src/learn/keep-learned.ts). Both models are scored
 * as the gate scores (served pipeline, same held-out photos) and the one served is named with the
 * reason. The worker writes it in the version's report as `retrain`; GET /api/learning/{kind}
 * shows it on each run. One schema for both, so the record and the OpenAPI description agree.
 */
import { z } from 'zod';

const Figures = z.object({
  trained_on: z.number().int().describe('photos it trained on (enrolled and labelled)'),
  closed: z.number().int().describe('held-out photos asked with their individual enrolled'),
  open: z.number().int().describe('asked again with their individual hidden (strangers only)'),
  top1: z.number().describe('served top-1 on those photos (0–1)'),
  correct_match: z
    .number()
    .describe('right `match` answers at ≤ 1% false matches, at the threshold its own calibration can vouch for (0–1)'),
  calibration_queries: z
    .number()
    .int()
    .describe(
      'queries of photos it never trained on that its calibration can rest on; 0 for the retrained model, which trained on all of them',
    ),
  allowed_false_matches: z.number().int().describe('false matches that calibration allows in this sample; -1: none vouched, no `match`'),
});

export const RetrainRecord = z.object({
  served: z.enum(['retrained', 'judged']).describe('which model serves: the one trained on every photo, or the one the gate judged'),
  reason: z.string().describe('why, in English'),
  message: z
    .object({ code: z.string(), params: z.record(z.string(), z.union([z.string(), z.number()])) })
    .describe('the same sentence as a catalogue code and its figures'),
  recipe: z
    .record(z.string(), z.union([z.string(), z.number()]))
    .describe('the settings both trained with (epochs, seed, freeze, margin, input size, width of the embedding)'),
  judged: Figures.describe('the model the gate judged and adopted'),
  retrained: Figures.nullable().describe('the same recipe trained on every photo; null when that training failed'),
  error: z.string().nullable().describe('why the retrain failed; null otherwise'),
});
export type RetrainRecord = z.infer<typeof RetrainRecord>;
export type RetrainFigures = z.infer<typeof Figures>;

/** The retrain a run recorded (in its training report), or null: no adoption, a linear metric, or a run stored before it. */
export function retrainOf(decision: Record<string, unknown> | null): RetrainRecord | null {
  const report = decision?.report as Record<string, unknown> | undefined;
  const r = RetrainRecord.safeParse(report?.retrain);
  return r.success ? r.data : null;
}
