import type { OwnerScope } from '../access/owner-scope.js';
import type { Database } from '../ports/database.port.js';
import type { Container } from '../container.js';
import { releaseBlobs } from './evidence/blob-refs.js';

/**
 * Every query on `fruit_batches`, `fruit_batch_rows` (migration 060) and `fruit_batch_views`
 * (migration 180: a row is one fruit, decided from its views), shared by the API
 * (creating, reading, deleting batches) and the worker (filling one row per job).
 *
 * The one rule that keeps counts honest under retries: a row moves out of `pending` once, by
 * `finishRow`, whose guard is `status = 'pending'`; counts are always read from the rows, never
 * kept as counters that a retried job could bump twice.
 *
 * A batch is its account's own only (shared/src/access/policy.ts): the statements that pick
 * batches by their owner take the caller's `OwnerScope`; the others take a batch id whose owner
 * was checked through `owned` first, or a job's row.
 */

export type RowStatus = 'pending' | 'done' | 'failed';

/** A refusal in the message catalogue: the code and its parameters. */
export interface Refusal {
  reason_code: string;
  reason_params: Record<string, unknown>;
}

/** One photo of a fruit: its file, its stored photo, and its own failure when it alone could not be used. */
export interface ViewRecord {
  view: number;
  file_name: string;
  cid: string | null;
  reason_code: string | null;
  reason_params: Record<string, unknown> | null;
}

export interface BatchRowRecord {
  idx: number;
  file_name: string;
  cid: string | null;
  status: RowStatus;
  fruit_id: string | null;
  candidate: string | null;
  probability: number | null;
  verdict: string | null;
  /** The identify query the row was answered as (labels refer to it); null before it is decided, or for rows decided before it was kept. */
  query_id?: string | null;
  reason_code: string | null;
  reason_params: Record<string, unknown> | null;
  /** The fruit's photos in order; a row written before views were kept shows its one photo. */
  views: ViewRecord[];
  /** The stored answer's candidates (fruit ids and probabilities, best first): what the owner chooses among. */
  candidates?: { individual_id: string; probability: number }[];
  /** The owner's label on the row's answer (identify_verdicts), null while undecided. */
  label?: BatchRowLabel | null;
}

/** A decision on a batch row: the identify_verdict label its stored answer carries. */
export interface BatchRowLabel {
  verdict: 'correct' | 'wrong' | 'other' | 'unknown_ok';
  correct_id: string | null;
  created_at: string;
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

/**
 * What a finished row says: identified (done) or failed with a catalogue reason, and the views
 * that failed on their own while describing (written with the row, never apart from it).
 */
export type RowOutcome = (
  | {
      status: 'done';
      fruit_id: string | null;
      candidate: string | null;
      probability: number | null;
      verdict: string;
      query_id?: string | null;
    }
  | { status: 'failed'; reason_code: string; reason_params: Record<string, unknown> }
) & { work_ms?: number; view_failures?: ({ view: number } & Refusal)[] };

/** One photo of a new row: stored, or refused at once (its own reason). */
export interface NewView {
  file_name: string;
  cid: string | null;
  failed?: Refusal;
}

/**
 * A new row as the API creates it: one fruit, pending with at least one stored photo, or failed at
 * once (no usable photo, too many views). `cid` is its first stored photo.
 */
export interface NewRow {
  idx: number;
  file_name: string;
  cid: string | null;
  failed?: Refusal;
  views: NewView[];
}

/** A pending row as its job reads it: the fruit's name and the views it may describe. */
export interface PendingRow {
  file_name: string;
  cid: string;
  views: { view: number; file_name: string; cid: string | null; failed: boolean }[];
}

const iso = (d: unknown) => (d == null ? null : d instanceof Date ? d.toISOString() : new Date(String(d)).toISOString());

function toBatch(r: Record<string, unknown>): BatchRecord {
  return {
    id: String(r.id),
    owner_id: String(r.owner_id),
    tree_id: (r.tree_id as string) ?? null,
    farm_id: (r.farm_id as string) ?? null,
    total: Number(r.total),
    status: r.status as BatchRecord['status'],
    created_at: iso(r.created_at)!,
    finished_at: iso(r.finished_at),
  };
}

/** A batch's thumbnails and the tree it was narrowed to (null when none). */
export interface BatchExtrasRow {
  id: string;
  cids: string[] | null;
  tree_id: string | null;
  tree_name: string | null;
  tree_code: string | null;
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
    async create(scope: OwnerScope, b: { id: string; tree_id: string | null; farm_id: string | null }, rows: NewRow[]): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.query('insert into fruit_batches (id, owner_id, tree_id, farm_id, total) values ($1, $2, $3, $4, $5)', [
          b.id,
          scope.ownerId,
          b.tree_id,
          b.farm_id,
          rows.length,
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
            b.id,
            rows.map((r) => r.idx),
            rows.map((r) => r.file_name),
            rows.map((r) => r.cid),
            rows.map((r) => r.failed?.reason_code ?? null),
            rows.map((r) => (r.failed ? JSON.stringify(r.failed.reason_params) : null)),
          ],
        );
        const views = rows.flatMap((r) => r.views.map((v, view) => ({ idx: r.idx, view, ...v })));
        await tx.query(
          `insert into fruit_batch_views (batch_id, idx, view, file_name, cid, reason_code, reason_params)
           select $1, u.idx, u.view, u.file_name, u.cid, u.reason_code, u.reason_params::jsonb
             from unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[]) as u(idx, view, file_name, cid, reason_code, reason_params)`,
          [
            b.id,
            views.map((v) => v.idx),
            views.map((v) => v.view),
            views.map((v) => v.file_name),
            views.map((v) => v.cid),
            views.map((v) => v.failed?.reason_code ?? null),
            views.map((v) => (v.failed ? JSON.stringify(v.failed.reason_params) : null)),
          ],
        );
      });
      await closeIfFinished(b.id);
    },

    /** The batch when it is the scope's account's; null for a missing batch and another account's alike. */
    async owned(batchId: string, scope: OwnerScope): Promise<BatchRecord | null> {
      const r = await db.query<Record<string, unknown>>('select * from fruit_batches where id = $1 and owner_id = $2', [
        batchId,
        scope.ownerId,
      ]);
      return r.rows[0] ? toBatch(r.rows[0]) : null;
    },

    async list(scope: OwnerScope): Promise<(BatchRecord & BatchCounts)[]> {
      const r = await db.query<Record<string, unknown>>(
        `select b.*,
                (select count(*) from fruit_batch_rows x where x.batch_id = b.id and x.status <> 'pending')::int as done,
                (select count(*) from fruit_batch_rows x where x.batch_id = b.id and x.status = 'failed')::int as failed
           from fruit_batches b where b.owner_id = $1 order by b.created_at desc, b.id`,
        [scope.ownerId],
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
      // With each row its stored answer's candidates and the owner's label on it, so a row can be
      // decided in the table and shows how it was decided (issue 39).
      const r = await db.query<
        Omit<BatchRowRecord, 'views' | 'candidates' | 'label'> & {
          candidates: unknown;
          label_verdict: BatchRowLabel['verdict'] | null;
          label_correct_id: string | null;
          label_at: unknown;
        }
      >(
        `select r.*, q.result->'candidates' as candidates, v.verdict as label_verdict, v.correct_id as label_correct_id, v.created_at as label_at
           from fruit_batch_rows r
           left join identify_queries q on q.id = r.query_id
           left join identify_verdicts v on v.query_id = q.id and v.owner_id = q.owner_id
          where r.batch_id = $1 order by r.idx`,
        [batchId],
      );
      const v = await db.query<ViewRecord & { idx: number }>(
        'select idx, view, file_name, cid, reason_code, reason_params from fruit_batch_views where batch_id = $1 order by idx, view',
        [batchId],
      );
      const views = new Map<number, ViewRecord[]>();
      for (const x of v.rows) {
        const list = views.get(Number(x.idx)) ?? [];
        list.push({ view: Number(x.view), file_name: x.file_name, cid: x.cid, reason_code: x.reason_code, reason_params: x.reason_params });
        views.set(Number(x.idx), list);
      }
      return r.rows.map((x) => {
        const idx = Number(x.idx);
        // A row from before migration 180 was one photo: it is its own one view.
        const own = views.get(idx) ?? [
          { view: 0, file_name: x.file_name, cid: x.cid, reason_code: x.reason_code, reason_params: x.reason_params },
        ];
        const { candidates, label_verdict, label_correct_id, label_at, ...row } = x;
        return {
          ...row,
          idx,
          probability: row.probability == null ? null : Number(row.probability),
          views: own,
          candidates: Array.isArray(candidates)
            ? (candidates as { individual_id: string; probability: number }[]).map((c) => ({
                individual_id: String(c.individual_id),
                probability: Number(c.probability),
              }))
            : [],
          label: label_verdict ? { verdict: label_verdict, correct_id: label_correct_id, created_at: iso(label_at)! } : null,
        };
      });
    },

    /** The row a job is about to fill, or null when it is gone (batch deleted) or already finished. */
    async pendingRow(batchId: string, idx: number): Promise<PendingRow | null> {
      const r = await db.query<{ file_name: string; cid: string }>(
        `select file_name, cid from fruit_batch_rows where batch_id = $1 and idx = $2 and status = 'pending' and cid is not null`,
        [batchId, idx],
      );
      const row = r.rows[0];
      if (!row) return null;
      const v = await db.query<{ view: number; file_name: string; cid: string | null; reason_code: string | null }>(
        'select view, file_name, cid, reason_code from fruit_batch_views where batch_id = $1 and idx = $2 order by view',
        [batchId, idx],
      );
      const views = v.rows.map((x) => ({ view: Number(x.view), file_name: x.file_name, cid: x.cid, failed: x.reason_code != null }));
      // A row queued before migration 180 has no views: its one photo is the row's.
      return { ...row, views: views.length ? views : [{ view: 0, file_name: row.file_name, cid: row.cid, failed: false }] };
    },

    /** The worker's time on each row of a batch it has finished (ms): what the batch benchmark reads. */
    async workTimes(batchId: string): Promise<number[]> {
      const r = await db.query<{ work_ms: number }>(
        'select work_ms from fruit_batch_rows where batch_id = $1 and work_ms is not null order by idx',
        [batchId],
      );
      return r.rows.map((x) => Number(x.work_ms));
    },

    /**
     * Fill a pending row once, with the failures of its views, in one transaction: a worker that
     * dies half way leaves the row pending and its views as they were, for the retry to redo.
     * False when it was not pending any more (a retry, or a deleted batch).
     */
    async finishRow(batchId: string, idx: number, o: RowOutcome): Promise<boolean> {
      const written = await db.transaction(async (tx) => {
        const r =
          o.status === 'done'
            ? await tx.query(
                `update fruit_batch_rows set status = 'done', fruit_id = $3, candidate = $4, probability = $5, verdict = $6, work_ms = $7, query_id = $8, finished_at = now()
                  where batch_id = $1 and idx = $2 and status = 'pending'`,
                [batchId, idx, o.fruit_id, o.candidate, o.probability, o.verdict, o.work_ms ?? null, o.query_id ?? null],
              )
            : await tx.query(
                `update fruit_batch_rows set status = 'failed', reason_code = $3, reason_params = $4, work_ms = $5, finished_at = now()
                  where batch_id = $1 and idx = $2 and status = 'pending'`,
                [batchId, idx, o.reason_code, o.reason_params, o.work_ms ?? null],
              );
        if (r.affectedRows !== 1) return false;
        for (const f of o.view_failures ?? []) {
          await tx.query(
            'update fruit_batch_views set reason_code = $4, reason_params = $5 where batch_id = $1 and idx = $2 and view = $3 and reason_code is null',
            [batchId, idx, f.view, f.reason_code, f.reason_params],
          );
        }
        return true;
      });
      await closeIfFinished(batchId);
      return written;
    },

    /** Delete the batch, its rows and the identify answers they were decided as; returns the photo CIDs it held (every view's), for blob clean-up. */
    async remove(batchId: string, scope: OwnerScope): Promise<string[] | null> {
      return db.transaction(async (tx) => {
        const cids = await tx.query<{ cid: string }>(
          `select r.cid from fruit_batch_rows r join fruit_batches b on b.id = r.batch_id
            where b.id = $1 and b.owner_id = $2 and r.cid is not null
           union
           select v.cid from fruit_batch_views v join fruit_batches b on b.id = v.batch_id
            where b.id = $1 and b.owner_id = $2 and v.cid is not null`,
          [batchId, scope.ownerId],
        );
        // The rows' stored answers (and their labels) go with the batch; they held its photos too.
        await tx.query(
          `delete from identify_queries q using fruit_batch_rows r join fruit_batches b on b.id = r.batch_id
            where b.id = $1 and b.owner_id = $2 and q.id = r.query_id and q.owner_id = $2`,
          [batchId, scope.ownerId],
        );
        const del = await tx.query('delete from fruit_batches where id = $1 and owner_id = $2', [batchId, scope.ownerId]);
        return del.affectedRows === 1 ? cids.rows.map((x) => x.cid) : null;
      });
    },

    /**
     * For the list of past batches: each batch's first `thumbnails` photos (in row order) and the
     * tree it was narrowed to, with the tree's name and printed code.
     */
    async listExtras(ids: readonly string[], thumbnails: number): Promise<BatchExtrasRow[]> {
      if (!ids.length) return [];
      const r = await db.query<BatchExtrasRow>(
        `select b.id, b.tree_id, t.name as tree_name, (select tr.code from tree_records tr where tr.individual_id = b.tree_id) as tree_code,
                array(select x.cid from fruit_batch_rows x where x.batch_id = b.id and x.cid is not null order by x.idx limit $2) as cids
           from fruit_batches b left join individuals t on t.id = b.tree_id where b.id = any($1::uuid[])`,
        [[...ids], thumbnails],
      );
      return r.rows;
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
