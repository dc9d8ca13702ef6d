import type { Database } from '../ports/database.port.js';
import type { Container } from '../container.js';
import { releaseBlobs } from '../evidence/store/blob-refs.js';

/**
 * Every query on `fruit_batches` and `fruit_batch_rows` (migration 060), shared by the API
 * (creating, reading, deleting batches) and the worker (filling one row per job).
 *
 * The one rule that keeps counts honest under retries: a row moves out of `pending` once, by
 * `finishRow`, whose guard is `status = 'pending'`; counts are always read from the rows, never
 * kept as counters that a retried job could bump twice.
 */

export type RowStatus = 'pending' | 'done' | 'failed';

export interface BatchRowRecord {
  idx: number;
  file_name: string;
  cid: string | null;
  status: RowStatus;
  fruit_id: string | null;
  candidate: string | null;
  probability: number | null;
  verdict: string | null;
  reason_code: string | null;
  reason_params: Record<string, unknown> | null;
}

export interface BatchRecord {
  id: string;
  owner_id: string;
  tree_id: string | null;
  farm_id: string | null;
  total: number;
  status: 'running' | 'done';
  created_at: string;
  finished_at: string | null;
}

export interface BatchCounts {
  total: number;
  done: number;
  failed: number;
  status: 'running' | 'done';
}

/** What a finished row says: identified (done) or failed with a catalogue reason. */
export type RowOutcome = (
  | { status: 'done'; fruit_id: string | null; candidate: string | null; probability: number | null; verdict: string }
  | { status: 'failed'; reason_code: string; reason_params: Record<string, unknown> }
) & { work_ms?: number };

/** A new row as the API creates it: pending with a stored photo, or failed at once (not an image). */
export interface NewRow {
  idx: number;
  file_name: string;
  cid: string | null;
  failed?: { reason_code: string; reason_params: Record<string, unknown> };
}

const iso = (d: unknown) => (d == null ? null : d instanceof Date ? d.toISOString() : new Date(String(d)).toISOString());

function toBatch(r: Record<string, unknown>): BatchRecord {
  return {
    id: String(r.id), owner_id: String(r.owner_id), tree_id: (r.tree_id as string) ?? null, farm_id: (r.farm_id as string) ?? null,
    total: Number(r.total), status: r.status as BatchRecord['status'], created_at: iso(r.created_at)!, finished_at: iso(r.finished_at),
  };
}

export function fruitBatchRepo(db: Database) {
  /** Mark the batch done once no row is pending; safe to call from every finishing job. */
  async function closeIfFinished(batchId: string): Promise<void> {
    await db.query(
      `update fruit_batches set status = 'done', finished_at = now()
        where id = $1 and status = 'running'
          and not exists (select 1 from fruit_batch_rows where batch_id = $1 and status = 'pending')`,
      [batchId],
    );
  }

  return {
    closeIfFinished,

    /** Insert the batch and all its rows in one transaction: a batch is never seen half-made. */
    async create(b: { id: string; owner_id: string; tree_id: string | null; farm_id: string | null }, rows: NewRow[]): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.query('insert into fruit_batches (id, owner_id, tree_id, farm_id, total) values ($1, $2, $3, $4, $5)', [
          b.id, b.owner_id, b.tree_id, b.farm_id, rows.length,
        ]);
        // One statement for the whole batch: hundreds of single inserts are slow on PGlite.
        await tx.query(
          `insert into fruit_batch_rows (batch_id, idx, file_name, cid, status, reason_code, reason_params, finished_at)
           select $1, u.idx, u.file_name, u.cid,
                  case when u.reason_code is null then 'pending' else 'failed' end,
                  u.reason_code, u.reason_params::jsonb,
                  case when u.reason_code is null then null else now() end
             from unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) as u(idx, file_name, cid, reason_code, reason_params)`,
          [
            b.id, rows.map((r) => r.idx), rows.map((r) => r.file_name), rows.map((r) => r.cid),
            rows.map((r) => r.failed?.reason_code ?? null), rows.map((r) => (r.failed ? JSON.stringify(r.failed.reason_params) : null)),
          ],
        );
      });
      await closeIfFinished(b.id);
    },

    /** The batch when `ownerId` owns it; null for a missing batch and another account's alike. */
    async owned(batchId: string, ownerId: string): Promise<BatchRecord | null> {
      const r = await db.query<Record<string, unknown>>('select * from fruit_batches where id = $1 and owner_id = $2', [batchId, ownerId]);
      return r.rows[0] ? toBatch(r.rows[0]) : null;
    },

    async list(ownerId: string): Promise<(BatchRecord & BatchCounts)[]> {
      const r = await db.query<Record<string, unknown>>(
        `select b.*,
                (select count(*) from fruit_batch_rows x where x.batch_id = b.id and x.status <> 'pending')::int as done,
                (select count(*) from fruit_batch_rows x where x.batch_id = b.id and x.status = 'failed')::int as failed
           from fruit_batches b where b.owner_id = $1 order by b.created_at desc, b.id`,
        [ownerId],
      );
      return r.rows.map((x) => ({ ...toBatch(x), done: Number(x.done), failed: Number(x.failed) }));
    },

    /** Progress read from the rows; `done` counts every finished row, failed ones included. */
    async counts(batchId: string): Promise<BatchCounts | null> {
      const r = await db.query<{ total: number; status: BatchCounts['status']; done: number; failed: number }>(
        `select b.total, b.status,
                (select count(*) from fruit_batch_rows x where x.batch_id = b.id and x.status <> 'pending')::int as done,
                (select count(*) from fruit_batch_rows x where x.batch_id = b.id and x.status = 'failed')::int as failed
           from fruit_batches b where b.id = $1`,
        [batchId],
      );
      const row = r.rows[0];
      return row ? { total: Number(row.total), status: row.status, done: Number(row.done), failed: Number(row.failed) } : null;
    },

    async rows(batchId: string): Promise<BatchRowRecord[]> {
      const r = await db.query<BatchRowRecord>('select * from fruit_batch_rows where batch_id = $1 order by idx', [batchId]);
      return r.rows.map((x) => ({ ...x, idx: Number(x.idx), probability: x.probability == null ? null : Number(x.probability) }));
    },

    /** The row a job is about to fill, or null when it is gone (batch deleted) or already finished. */
    async pendingRow(batchId: string, idx: number): Promise<{ file_name: string; cid: string } | null> {
      const r = await db.query<{ file_name: string; cid: string }>(
        `select file_name, cid from fruit_batch_rows where batch_id = $1 and idx = $2 and status = 'pending' and cid is not null`,
        [batchId, idx],
      );
      return r.rows[0] ?? null;
    },

    /** Fill a pending row once; false when it was not pending any more (a retry, or a deleted batch). */
    async finishRow(batchId: string, idx: number, o: RowOutcome): Promise<boolean> {
      const r =
        o.status === 'done'
          ? await db.query(
              `update fruit_batch_rows set status = 'done', fruit_id = $3, candidate = $4, probability = $5, verdict = $6, work_ms = $7, finished_at = now()
                where batch_id = $1 and idx = $2 and status = 'pending'`,
              [batchId, idx, o.fruit_id, o.candidate, o.probability, o.verdict, o.work_ms ?? null],
            )
          : await db.query(
              `update fruit_batch_rows set status = 'failed', reason_code = $3, reason_params = $4, work_ms = $5, finished_at = now()
                where batch_id = $1 and idx = $2 and status = 'pending'`,
              [batchId, idx, o.reason_code, o.reason_params, o.work_ms ?? null],
            );
      await closeIfFinished(batchId);
      return r.affectedRows === 1;
    },

    /** Delete the batch and its rows; returns the photo CIDs it held, for blob clean-up. */
    async remove(batchId: string, ownerId: string): Promise<string[] | null> {
      return db.transaction(async (tx) => {
        const cids = await tx.query<{ cid: string }>(
          `select distinct r.cid from fruit_batch_rows r join fruit_batches b on b.id = r.batch_id
            where b.id = $1 and b.owner_id = $2 and r.cid is not null`,
          [batchId, ownerId],
        );
        const del = await tx.query('delete from fruit_batches where id = $1 and owner_id = $2', [batchId, ownerId]);
        return del.affectedRows === 1 ? cids.rows.map((x) => x.cid) : null;
      });
    },
  };
}

/**
 * Release the blobs a deleted batch (or a failed request) named: each goes only when nothing at
 * all references it any more (blob-refs, the one reference model). Kept under this name for its
 * callers; the decision is releaseBlobs'.
 */
export async function dropUnusedBlobs(c: Pick<Container, 'db' | 'blobs' | 'config'>, cids: readonly string[]): Promise<void> {
  await releaseBlobs(c, cids);
}

export type FruitBatchRepo = ReturnType<typeof fruitBatchRepo>;
