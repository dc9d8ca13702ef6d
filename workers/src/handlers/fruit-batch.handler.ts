import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { fruitBatchRepo, type RowOutcome } from '../../../shared/src/repos/fruit-batch.repo.js';
import { describeOrRefuse } from './describe.js';
import { identifyDescriptors, type IdentifyDeps } from './identify.handler.js';

/** A photo that can never be identified: its row fails with the catalogue reason, the batch goes on. */
function refusal(err: unknown): RowOutcome | null {
  const e = err as { unrecoverable?: boolean; code?: unknown; params?: Record<string, unknown> };
  if (!e?.unrecoverable || typeof e.code !== 'string') return null;
  return { status: 'failed', reason_code: e.code, reason_params: e.params ?? {} };
}

/**
 * One photo of a packing-house batch: describe it, rank the owner's fruit (narrowed by the
 * batch's tree_id or farm_id), and fill its row. Idempotent: a row already finished (a retry
 * after a worker died mid-write) or gone (the batch was deleted) is skipped. A transient error
 * is thrown for the queue to retry; on the last attempt the row fails instead, so a batch can
 * never hang on a row nobody will finish.
 */
export function fruitBatchItemHandler(deps: IdentifyDeps): JobHandler<'fruit_batch_item'> {
  const repo = fruitBatchRepo(deps.c.db);
  return async (data, ctx) => {
    const row = await repo.pendingRow(data.batch_id, data.index);
    if (!row) return { skipped: true };
    let outcome: RowOutcome;
    const started = performance.now();
    try {
      const query = await describeOrRefuse(deps.c, deps.engine, row.cid, row.file_name, 'fruit');
      const r = await identifyDescriptors(deps, { owner_id: data.owner_id, kind: 'fruit', filters: data.filters }, [query], undefined, { review: false });
      const top = r.candidates[0] as { individual_id: string; name: string | null; probability: number } | undefined;
      outcome = { status: 'done', verdict: r.verdict, fruit_id: top?.individual_id ?? null, candidate: top ? (top.name ?? top.individual_id) : null, probability: top?.probability ?? null };
    } catch (err) {
      const refused = refusal(err);
      if (refused) outcome = refused;
      else if (ctx.attempt >= deps.c.config.JOB_ATTEMPTS) outcome = { status: 'failed', reason_code: 'batch_row_error', reason_params: { filename: row.file_name } };
      else throw err;
    }
    outcome.work_ms = Math.round(performance.now() - started);
    const written = await repo.finishRow(data.batch_id, data.index, outcome);
    return { written, status: outcome.status };
  };
}
