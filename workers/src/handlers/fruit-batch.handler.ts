import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { fruitBatchRepo, type Refusal, type RowOutcome } from '../../../shared/src/repos/fruit-batch.repo.js';
import type { Descriptor } from '../vision/engine.js';
import { describeOrRefuse } from './describe.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import { identifyDescriptors, storeQuery, type IdentifyDeps } from './identify.handler.js';
import { createHash } from 'node:crypto';

/** A photo that can never be identified: its view (or row) fails with the catalogue reason, the batch goes on. */
function refusal(err: unknown): Refusal | null {
  const e = err as { unrecoverable?: boolean; code?: unknown; params?: Record<string, unknown> };
  if (!e?.unrecoverable || typeof e.code !== 'string') return null;
  return { reason_code: e.code, reason_params: e.params ?? {} };
}

/**
 * One fruit of a packing-house batch: describe each of its views, rank the owner's fruit (narrowed
 * by the batch's tree_id or farm_id) from all the usable ones as one query, and fill its row. The
 * views go to identifyDescriptors in the order they came, exactly as /api/fruit/identify sends the
 * photos of one query, so the engine fuses and decides them as it decides that query (its
 * threshold for that many photos included: vision/decide.ts, decideSeveral). A view that can never
 * be used fails on its own while the others decide; with none left the row fails.
 *
 * Idempotent: a row already finished (a retry after a worker died mid-write) or gone (the batch was
 * deleted) is skipped, and the row and its views' failures are written in one transaction. A
 * transient error is thrown for the queue to retry; on the last attempt the row fails instead, so
 * a batch can never hang on a row nobody will finish.
 */
export function fruitBatchItemHandler(deps: IdentifyDeps): JobHandler<'fruit_batch_item'> {
  const repo = fruitBatchRepo(deps.c.db);
  return async (data, ctx) => {
    const row = await repo.pendingRow(data.batch_id, data.index);
    if (!row) return { skipped: true };
    let outcome: RowOutcome;
    const started = performance.now();
    const viewFailures: ({ view: number } & Refusal)[] = [];
    try {
      const queries: Descriptor[] = [];
      const usable = row.views.filter((v) => v.cid && !v.failed);
      for (const v of usable) {
        try {
          queries.push(await describeOrRefuse(deps.c, deps.engine, v.cid!, v.file_name, 'fruit'));
        } catch (err) {
          const refused = refusal(err);
          if (!refused) throw err;
          viewFailures.push({ view: v.view, ...refused });
        }
      }
      if (queries.length === 0) {
        // A single photo fails with its own reason, as a batch of single photos always did.
        const own = row.views.length === 1 ? viewFailures[0] : undefined;
        const reason = own ?? {
          reason_code: 'batch_fruit_no_usable_view',
          reason_params: { fruit: row.file_name, views: row.views.length },
        };
        outcome = { status: 'failed', reason_code: reason.reason_code, reason_params: reason.reason_params };
      } else {
        const r = await identifyDescriptors(deps, { owner_id: data.owner_id, kind: 'fruit', filters: data.filters }, queries, undefined, {
          review: false,
        });
        // Stored as an identify answer under an id fixed by the row, so a retry stores it once and a
        // label (/api/fruit/identify_verdict) can refer to it.
        const queryId = rowQueryId(data.batch_id, data.index);
        const cids = usable.filter((v) => v.cid).map((v) => v.cid!);
        await storeQuery(
          deps.c,
          { id: queryId, owner: scopeOfJob(data), kind: 'fruit', cids },
          { query_id: queryId, batch_id: data.batch_id, ...r },
        );
        const top = r.candidates[0] as { individual_id: string; name: string | null; probability: number } | undefined;
        outcome = {
          status: 'done',
          verdict: r.verdict,
          fruit_id: top?.individual_id ?? null,
          candidate: top ? (top.name ?? top.individual_id) : null,
          probability: top?.probability ?? null,
          query_id: queryId,
        };
      }
    } catch (err) {
      const refused = refusal(err);
      if (refused) outcome = { status: 'failed', ...refused };
      else if (ctx.attempt >= deps.c.config.JOB_ATTEMPTS)
        outcome = { status: 'failed', reason_code: 'batch_row_error', reason_params: { filename: row.file_name } };
      else throw err;
    }
    outcome.work_ms = Math.round(performance.now() - started);
    outcome.view_failures = viewFailures;
    const written = await repo.finishRow(data.batch_id, data.index, outcome);
    return { written, status: outcome.status };
  };
}

/** The identify query id of a batch row: a UUID derived from the batch and the row, the same on every retry. */
export function rowQueryId(batchId: string, index: number): string {
  const h = createHash('sha256').update(`fruit-batch-row:${batchId}:${index}`).digest('hex');
  // Shaped as a version 4, variant 1 UUID so every `uuid` column and validator takes it.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
