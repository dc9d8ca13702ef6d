import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { renderMessage, type Lang, type MessageCode } from '../../../shared/src/domain/messages.js';
import { storeBlob } from '../../../shared/src/evidence/store/blob-registry.js';
import { dropUnusedBlobs, fruitBatchRepo, type BatchCounts, type BatchRowRecord, type NewRow } from '../../../shared/src/repos/fruit-batch.repo.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { batchItems } from './fruit-batch-input.js';
import type { TreesService } from './trees.service.js';

export interface BatchInput { files: UploadedFile[]; tree_id?: string; farm_id?: string }

/** One row as the batch page and the CSV show it; absent fields are simply left out. */
export interface BatchRowOut {
  index: number; file_name: string; status: BatchRowRecord['status'];
  fruit_id?: string; candidate?: string; probability?: number; verdict?: string; reason?: string;
}

export const CSV_HEADER = ['index', 'file_name', 'status', 'fruit_id', 'candidate', 'probability', 'verdict', 'reason'] as const;

const links = (id: string) => ({ self: `/api/fruit/batch/${id}`, events: `/api/fruit/batch/${id}/events`, csv: `/api/fruit/batch/${id}/results.csv` });

function rowOut(r: BatchRowRecord, lang: Lang): BatchRowOut {
  const out: BatchRowOut = { index: r.idx, file_name: r.file_name, status: r.status };
  if (r.fruit_id) out.fruit_id = r.fruit_id;
  if (r.candidate) out.candidate = r.candidate;
  if (r.probability != null) out.probability = r.probability;
  if (r.verdict) out.verdict = r.verdict;
  if (r.reason_code) out.reason = renderMessage(r.reason_code as MessageCode, lang, r.reason_params ?? {});
  return out;
}

/** RFC 4180 quoting, and a leading `'` on text a spreadsheet would run as a formula. */
export function csvCell(v: unknown): string {
  if (v == null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Packing-house batches: many photos (or a .zip of them) in one request, one `fruit_batch_item`
 * job per photo so any number of workers share the work, one row per photo kept until the owner
 * deletes the batch. Ownership comes from the token; another account's batch is a 404.
 */
export function createFruitBatchService(c: Container, deps: { trees: TreesService }) {
  const repo = fruitBatchRepo(c.db);
  const limits = { maxPhotos: c.config.BATCH_MAX_PHOTOS, maxBytes: c.config.BATCH_MAX_BYTES };

  async function owned(caller: Caller, id: string) {
    const b = await repo.owned(id, caller.account_id);
    if (!b) throw ERRORS.notFound();
    return b;
  }

  /** Store the photos, then write batch and rows in one transaction; on failure nothing is left behind. */
  async function persist(caller: Caller, input: BatchInput, id: string): Promise<NewRow[]> {
    const created: string[] = [];
    try {
      const rows: NewRow[] = [];
      for (const [idx, item] of batchItems(input.files, limits).entries()) {
        const file_name = item.file_name.slice(0, 255);
        if (item.failed || !item.bytes) {
          rows.push({ idx, file_name, cid: null, failed: item.failed });
          continue;
        }
        const { cid, created: isNew } = await storeBlob(c, item.bytes, item.type!);
        if (isNew) created.push(cid);
        rows.push({ idx, file_name, cid });
      }
      await repo.create({ id, owner_id: caller.account_id, tree_id: input.tree_id ?? null, farm_id: input.farm_id ?? null }, rows);
      return rows;
    } catch (err) {
      await dropUnusedBlobs(c, created).catch((e) => c.logger.error({ err: e }, 'batch clean-up failed'));
      throw err;
    }
  }

  return {
    limits,

    async create(caller: Caller, input: BatchInput) {
      if (input.tree_id) await deps.trees.access(caller.account_id, input.tree_id, 'read');
      const id = randomUUID();
      const rows = await persist(caller, input, id);
      const filters = { ...(input.tree_id ? { tree_id: input.tree_id } : {}), ...(input.farm_id ? { farm_id: input.farm_id } : {}) };
      try {
        // The fixed job id makes a repeated enqueue of the same row one job, in both queues.
        for (const r of rows.filter((x) => !x.failed)) {
          await c.queue.enqueue('fruit_batch_item', { owner_id: caller.account_id, batch_id: id, index: r.idx, cid: r.cid!, filters }, { jobId: `fbatch-${id}-${r.idx}` });
        }
      } catch (err) {
        const cids = await repo.remove(id, caller.account_id);
        await dropUnusedBlobs(c, cids ?? []).catch(() => undefined);
        throw err;
      }
      return { batch_id: id, total: rows.length, status: 'running' as const, links: links(id) };
    },

    async get(caller: Caller, id: string, lang: Lang) {
      const b = await owned(caller, id);
      const [counts, rows] = await Promise.all([repo.counts(id), repo.rows(id)]);
      return {
        batch_id: b.id, status: counts!.status, total: counts!.total, done: counts!.done, failed: counts!.failed,
        created_at: b.created_at, ...(counts!.status === 'done' && b.finished_at ? { finished_at: b.finished_at } : {}),
        rows: rows.map((r) => rowOut(r, lang)),
      };
    },

    async list(caller: Caller) {
      return (await repo.list(caller.account_id)).map((b) => ({
        batch_id: b.id, status: b.status, total: b.total, done: b.done, failed: b.failed, created_at: b.created_at,
        ...(b.finished_at ? { finished_at: b.finished_at } : {}), tree_id: b.tree_id, farm_id: b.farm_id, links: links(b.id),
      }));
    },

    async remove(caller: Caller, id: string) {
      const cids = await repo.remove(id, caller.account_id);
      if (!cids) throw ERRORS.notFound();
      // Jobs still queued for this batch find no row and do nothing.
      await dropUnusedBlobs(c, cids);
      return { batch_id: id, deleted: true as const };
    },

    async csv(caller: Caller, id: string, lang: Lang): Promise<string> {
      await owned(caller, id);
      const lines = [CSV_HEADER.join(',')];
      for (const r of (await repo.rows(id)).map((x) => rowOut(x, lang))) lines.push(CSV_HEADER.map((k) => csvCell(r[k])).join(','));
      return `${lines.join('\r\n')}\r\n`;
    },

    /** Check ownership up front, so the events route can answer 404 before it starts streaming. */
    owned: (caller: Caller, id: string) => owned(caller, id),

    /**
     * Progress as it changes, polled from the rows (the same in embedded and distributed mode:
     * any worker process may finish a row). Yields once at start, then at each change, and ends
     * after the batch is done (or deleted) or when `signal` aborts.
     */
    async *progress(id: string, signal: AbortSignal): AsyncGenerator<BatchCounts> {
      let last = '';
      while (!signal.aborted) {
        const now = await repo.counts(id);
        if (!now) return;
        const key = `${now.done}/${now.failed}/${now.status}`;
        if (key !== last) {
          last = key;
          yield now;
        }
        if (now.status === 'done') return;
        await sleep(c.config.BATCH_EVENTS_POLL_MS, undefined, { signal }).catch(() => undefined);
      }
    },
  };
}

export type FruitBatchService = ReturnType<typeof createFruitBatchService>;
