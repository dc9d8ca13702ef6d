import { z } from 'zod';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import { fitServes, isStaleFit } from '../../../shared/src/domain/calibration-fit.js';
import { bilingual, calibrationReason, runReason, type LearningMessage } from '../../../shared/src/domain/learning-reason.js';
import { RetrainRecord, retrainOf } from '../../../shared/src/domain/learning-retrain.js';
import { learnedModelsRepo } from '../../../shared/src/repos/learned-models.repo.js';
import { listRuns, pendingSinceLastRun, runTotals } from '../../../shared/src/repos/learning-runs.js';
import { ownerCalibrationsRepo } from '../../../shared/src/repos/owner-calibrations.repo.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse as err } from './schemas.js';

/** A sentence of the message catalogue in both languages, with the code and figures behind it. */
const ReasonMessage = z.object({
  code: z.string().describe('catalogue code, e.g. `learn_top1_would_fall`, `learn_adopted_more_matches`, `cal_too_few_queries`'),
  params: z.record(z.string(), z.union([z.string(), z.number()])).describe('the figures that fill it (percentages already × 100)'),
  vi: z.string().describe('the whole sentence in Vietnamese'),
  en: z.string().describe('the whole sentence in English'),
});

const Run = z.object({
  id: z.number().int(),
  status: z.enum(['queued', 'adopted', 'refused', 'skipped', 'failed', 'rolled_back']),
  trigger: z
    .record(z.string(), z.unknown())
    .describe('what queued it: new photos and labels since the previous run and the threshold, `manual`, or `command: rollback`'),
  reason: z
    .string()
    .nullable()
    .describe(
      'the decision in words, in English as the run stored it: why a new model was adopted or refused (held-out photos, served top-1, correct matches at ≤ 1% false matches)',
    ),
  reason_message: ReasonMessage.nullable().describe(
    'the same decision in Vietnamese and English, for the app to show in the chosen language; null for runs stored before runs recorded it (show `reason`)',
  ),
  decision: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('the figures behind it: the served-pipeline comparison, the training report and the refitted calibration'),
  retrain: RetrainRecord.omit({ message: true })
    .extend({ reason_message: ReasonMessage.describe('`reason` in Vietnamese and English') })
    .nullable()
    .describe(
      'after an adoption, the same recipe trained again on every photo: both models scored on the held-out photos as the gate scores them, and which one serves and why (docs/recognition.md, "Adoption and the learning loop"); null when nothing was adopted, for a linear metric, and for runs stored before it',
    ),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
const LearningOut = Ok.extend({
  kind: z.enum(['tree', 'fruit', 'animal']),
  learn_after_new: z
    .number()
    .int()
    .describe('new enrolled photos plus labels that queue the next run (LEARN_AFTER_NEW; 0: never by itself)'),
  pending: z.object({ since: z.string().nullable(), new_photos: z.number().int(), new_labels: z.number().int() }),
  adopted: z
    .object({ version: z.number().int(), recipe: z.string() })
    .nullable()
    .describe('the learned version serving now; null: the base model alone'),
  runs: z.array(Run).describe('the last 10 runs, newest first'),
  calibration: z
    .object({
      pipeline: z.string(),
      fitted: z.boolean(),
      report: z.record(z.string(), z.unknown()),
      created_at: z.string(),
      reason_message: ReasonMessage.nullable().describe(
        "why it is not fitted, in Vietnamese and English (read from the report's figures); null when fitted, or when the figures do not say (`report.reason` then)",
      ),
    })
    .nullable()
    .describe(
      "your newest calibration fit for this kind; `fitted` false means too little data (or a fit made under the older photo-count rule, refitted at the next run), and identify uses the kind's defaults",
    ),
});

/** A run's retrain after adoption as the owner reads it: its sentence in both languages instead of the code alone. */
function retrainView(decision: Record<string, unknown> | null) {
  const r = retrainOf(decision);
  if (!r) return null;
  const { message, ...rest } = r;
  return { ...rest, reason_message: bilingual(message as LearningMessage) };
}

/** The learning loop as the owner sees it (issue 23): when it last ran, what it measured, what it decided. */
export function learningRoutes(c: Container): RouteDef[] {
  // The operator's view of the same runs, on this process's /metrics.
  c.metrics.watchLearning(() => runTotals(c.db));
  return [
    defineRoute({
      method: 'get',
      path: '/api/learning/{kind}',
      tag: 'recognition',
      access: 'user',
      feature: 'learning',
      summary:
        'Your learning loop for one kind: pending photos and labels, the last runs and their decisions, the adopted version, the calibration',
      params: z.object({ kind: z.enum(['tree', 'fruit', 'animal']) }),
      responses: {
        200: { description: "the loop's state", schema: LearningOut },
        401: err('not signed in'),
        422: err('kind is not tree, fruit or animal'),
      },
      handler: async ({ params, caller }) => {
        const owner = scopeOfCaller(caller!);
        const { kind } = params;
        const adopted = await learnedModelsRepo.adoptedRecipe(c.db, owner, kind);
        const row = await ownerCalibrationsRepo.newestOfKind<unknown>(c.db, owner, kind);
        const runs = await listRuns(c.db, owner, kind);
        return {
          ok: true,
          kind,
          learn_after_new: c.config.LEARN_AFTER_NEW,
          pending: await pendingSinceLastRun(c.db, owner, kind),
          adopted,
          runs: runs.map(({ kind: _k, ...r }) => ({
            ...r,
            reason: typeof r.decision?.reason === 'string' ? r.decision.reason : null,
            reason_message: runReason(r.status, r.decision),
            retrain: retrainView(r.decision),
          })),
          calibration: row
            ? {
                pipeline: row.pipeline,
                fitted: fitServes(row),
                report: row.report,
                created_at: new Date(row.created_at).toISOString(),
                reason_message: calibrationReason(row.report, fitServes(row), isStaleFit(row)),
              }
            : null,
        };
      },
    }),
  ];
}
