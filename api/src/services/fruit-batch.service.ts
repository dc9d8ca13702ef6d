import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { JobQueue } from '../../../shared/src/ports/queue.port.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { renderMessage, type Lang, type MessageCode } from '../../../shared/src/domain/messages.js';
import type {
  fruitBatchRepo,
  BatchCounts,
  BatchRowLabel,
  BatchRowRecord,
  NewRow,
  NewView,
} from '../../../shared/src/repos/fruit-batch.repo.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { batchFruit, batchItems } from './fruit-batch-input.js';
import type { TreesService } from './trees.service.js';
import { csvCell } from '../../../shared/src/csv/csv.js';
import { fruitShortCode, type FruitSummary } from './fruit-list.service.js';
import { shownFileName } from './archive-reader.js';

export interface BatchInput {
  files: UploadedFile[];
  tree_id?: string;
  farm_id?: string;
}

/** One view of a row's fruit: its file, its photo, and whether it was used or failed on its own. */
export interface BatchViewOut {
  file_name: string;
  status: 'pending' | 'used' | 'failed';
  photo_url?: string;
  reason?: string;
}

/** One row (one fruit) as the batch page and the CSV show it; absent fields are simply left out. */
export interface BatchRowOut {
  index: number;
  file_name: string;
  status: BatchRowRecord['status'];
  fruit_id?: string;
  candidate?: string;
  probability?: number;
  verdict?: string;
  reason?: string;
  query_id?: string;
  photo_url?: string;
  fruit_name?: string;
  fruit_thumbnail?: string;
  tree_id?: string;
  tree_name?: string;
  tree_code?: string;
  fruit_short_code?: string;
  views: BatchViewOut[];
  candidates?: BatchCandidateOut[];
  decision?: BatchRowLabel['verdict'];
  decided_at?: string;
  decided_fruit_id?: string;
  decided_fruit_name?: string;
  decided_fruit_short_code?: string;
  decided_fruit_thumbnail?: string;
  decided_tree_name?: string;
  decided_tree_code?: string;
}

/** One fruit a row's answer offered, named as the table shows it (issue 39: decided in the table). */
export interface BatchCandidateOut {
  fruit_id: string;
  short_code: string;
  probability: number;
  name?: string;
  thumbnail?: string;
  tree_name?: string;
  tree_code?: string;
}

// The first eight columns are the original ones, unchanged; names and codes were added after them
// (issue 24), the fruit's views after those (issue 41), and the short code and the owner's decision
// last (issue 39), so a reader by position keeps working.
export const CSV_HEADER = [
  'index',
  'file_name',
  'status',
  'fruit_id',
  'candidate',
  'probability',
  'verdict',
  'reason',
  'fruit_name',
  'tree_id',
  'tree_name',
  'tree_code',
  'views',
  'query_id',
  'fruit_short_code',
  'decision',
  'decided_fruit_id',
  'decided_fruit_name',
  'decided_fruit_short_code',
  'decided_tree_name',
  'decided_tree_code',
] as const;

/** Between the file names of the CSV's `views` cell. */
export const CSV_VIEW_SEPARATOR = ' | ';

function viewOut(v: BatchRowRecord['views'][number], row: BatchRowRecord, lang: Lang): BatchViewOut {
  const status = v.reason_code ? 'failed' : row.status === 'done' ? 'used' : row.status;
  const out: BatchViewOut = { file_name: shownFileName(v.file_name), status };
  if (v.cid) out.photo_url = `/api/blobs/${v.cid}`;
  if (v.reason_code) out.reason = renderMessage(v.reason_code as MessageCode, lang, v.reason_params ?? {});
  return out;
}

/** Photos shown per batch in the list of past batches. */
const THUMBNAILS = 4;

const links = (id: string) => ({
  self: `/api/fruit/batch/${id}`,
  events: `/api/fruit/batch/${id}/events`,
  csv: `/api/fruit/batch/${id}/results.csv`,
});

/** A fruit as a row names it: id, short code, name, photo, tree name and printed code (absent fields left out). */
function named(id: string, f: FruitSummary | undefined) {
  return {
    fruit_id: id,
    short_code: fruitShortCode(id),
    ...(f?.name ? { name: f.name } : {}),
    ...(f?.cover ? { thumbnail: f.cover.url } : {}),
    ...(f?.tree?.name ? { tree_name: f.tree.name } : {}),
    ...(f?.tree?.code ? { tree_code: f.tree.code } : {}),
  };
}

/**
 * The owner's decision on a row, from the label on its stored answer: `correct` decides the top
 * candidate, `other` or `wrong` with a fruit decides that fruit, anything else is "none of these".
 */
function decisionOut(r: BatchRowRecord, fruit: Map<string, FruitSummary>): Partial<BatchRowOut> {
  if (!r.label) return {};
  const out: Partial<BatchRowOut> = { decision: r.label.verdict, decided_at: r.label.created_at };
  const id = r.label.verdict === 'correct' ? r.fruit_id : r.label.correct_id;
  if (!id) return out;
  const f = named(id, fruit.get(id));
  return {
    ...out,
    decided_fruit_id: id,
    decided_fruit_short_code: f.short_code,
    ...(f.name ? { decided_fruit_name: f.name } : {}),
    ...(f.thumbnail ? { decided_fruit_thumbnail: f.thumbnail } : {}),
    ...(f.tree_name ? { decided_tree_name: f.tree_name } : {}),
    ...(f.tree_code ? { decided_tree_code: f.tree_code } : {}),
  };
}

function rowOut(r: BatchRowRecord, lang: Lang, fruit: Map<string, FruitSummary> = new Map()): BatchRowOut {
  // Cleaned again on the way out: rows stored before names were cleaned may still hold bidi marks.
  const out: BatchRowOut = {
    index: r.idx,
    file_name: shownFileName(r.file_name),
    status: r.status,
    views: r.views.map((v) => viewOut(v, r, lang)),
  };
  if (r.cid) out.photo_url = `/api/blobs/${r.cid}`;
  if (r.fruit_id) {
    out.fruit_id = r.fruit_id;
    out.fruit_short_code = fruitShortCode(r.fruit_id);
  }
  const f = r.fruit_id ? fruit.get(r.fruit_id) : undefined;
  if (f?.name) out.fruit_name = f.name;
  if (f?.cover) out.fruit_thumbnail = f.cover.url;
  if (f?.tree) {
    out.tree_id = f.tree.tree_id;
    if (f.tree.name) out.tree_name = f.tree.name;
    if (f.tree.code) out.tree_code = f.tree.code;
  }
  if (r.candidate) out.candidate = r.candidate;
  if (r.probability != null) out.probability = r.probability;
  if (r.verdict) out.verdict = r.verdict;
  if (r.query_id) out.query_id = r.query_id;
  if (r.reason_code) out.reason = renderMessage(r.reason_code as MessageCode, lang, r.reason_params ?? {});
  if (r.candidates?.length) {
    out.candidates = r.candidates.map((c) => ({ ...named(c.individual_id, fruit.get(c.individual_id)), probability: c.probability }));
  }
  return { ...out, ...decisionOut(r, fruit) };
}

/**
 * Why a fruit none of whose photos could be used fails: a single photo's own reason (what a batch
 * of single photos always said), else one sentence pointing at its views' reasons.
 */
function noUsableView(fruit: string, views: NewView[]): NonNullable<NewRow['failed']> {
  if (views.length === 1 && views[0]!.failed) return views[0]!.failed;
  return { reason_code: 'batch_fruit_no_usable_view', reason_params: { fruit, views: views.length } };
}

// The service's one CSV writer (formula guard, RFC 4180 quoting), re-exported for older imports.
export { csvCell };

/**
 * Packing-house batches: many photos (or a .zip of them) in one request, grouped into fruit (a
 * folder of the archive, or a `fruit__view` file name: fruit-batch-input.ts), one
 * `fruit_batch_item` job per fruit so any number of workers share the work, one row per fruit
 * kept until the owner deletes the batch. Ownership comes from the token; another account's batch
 * is a 404.
 */
export interface FruitBatchLimits {
  maxPhotos: number;
  maxViews: number;
  maxBytes: number;
  maxPixels: number;
  archive: { maxEntries: number; maxTotalBytes: number; maxRatio: number };
}

export interface FruitBatchDeps {
  /** fruit-batch.repo's statements on the database. */
  batches: ReturnType<typeof fruitBatchRepo>;
  /** blob-registry's storeBlob on the database and the blob store. */
  storeBlob: (bytes: Uint8Array, contentType: string) => Promise<{ cid: string; created: boolean }>;
  /** fruit-batch.repo's dropUnusedBlobs: each CID goes only if nothing references it. */
  dropUnusedBlobs: (cids: readonly string[]) => Promise<void>;
  queue: Pick<JobQueue, 'enqueue'>;
  trees: Pick<TreesService, 'access'>;
  fruitSummaries: (ids: string[]) => Promise<Map<string, FruitSummary>>;
  /** BATCH_MAX_PHOTOS, BATCH_MAX_VIEWS, BATCH_MAX_BYTES, IMAGE_MAX_PIXELS and the ARCHIVE_MAX_* caps. */
  limits: FruitBatchLimits;
  /** BATCH_EVENTS_POLL_MS. */
  pollMs: number;
  logger: Pick<Logger, 'error'>;
}

export function createFruitBatchService(deps: FruitBatchDeps) {
  const { batches: repo, limits, storeBlob, dropUnusedBlobs } = deps;

  async function owned(caller: Caller, id: string) {
    const b = await repo.owned(id, scopeOfCaller(caller));
    if (!b) throw ERRORS.notFound();
    return b;
  }

  /** Store the photos, then write batch and rows in one transaction; on failure nothing is left behind. */
  async function persist(caller: Caller, input: BatchInput, id: string): Promise<NewRow[]> {
    const created: string[] = [];
    try {
      const rows: NewRow[] = [];
      for (const [idx, fruit] of batchFruit(await batchItems(input.files, limits), limits.maxViews).entries()) {
        const file_name = fruit.name.slice(0, 255);
        if (fruit.failed) {
          // Refused as a whole: its photos are listed but not kept.
          rows.push({
            idx,
            file_name,
            cid: null,
            failed: fruit.failed,
            views: fruit.views.map((v) => ({ file_name: v.file_name.slice(0, 255), cid: null })),
          });
          continue;
        }
        const views: NewView[] = [];
        for (const item of fruit.views) {
          const name = item.file_name.slice(0, 255);
          if (item.failed || !item.bytes) {
            views.push({ file_name: name, cid: null, failed: item.failed });
            continue;
          }
          const { cid, created: isNew } = await storeBlob(item.bytes, item.type!);
          if (isNew) created.push(cid);
          views.push({ file_name: name, cid });
        }
        const first = views.find((v) => v.cid);
        if (first) rows.push({ idx, file_name, cid: first.cid, views });
        else rows.push({ idx, file_name, cid: null, failed: noUsableView(fruit.name, views), views });
      }
      await repo.create(scopeOfCaller(caller), { id, tree_id: input.tree_id ?? null, farm_id: input.farm_id ?? null }, rows);
      return rows;
    } catch (err) {
      await dropUnusedBlobs(created).catch((e) => deps.logger.error({ err: e }, 'batch clean-up failed'));
      throw err;
    }
  }

  /**
   * For the list of past batches: the first few photos of each (thumbnails, readable by the batch's
   * owner) and the name and printed code of the tree it was narrowed to.
   */
  async function listExtras(ids: string[]) {
    const out = new Map<
      string,
      { thumbnails: { cid: string; url: string }[]; tree: { tree_id: string; name: string | null; code: string | null } | null }
    >();
    for (const x of await repo.listExtras(ids, THUMBNAILS)) {
      out.set(x.id, {
        thumbnails: (x.cids ?? []).map((cid) => ({ cid, url: `/api/blobs/${cid}` })),
        tree: x.tree_id ? { tree_id: x.tree_id, name: x.tree_name, code: x.tree_code } : null,
      });
    }
    return out;
  }

  /** Names, thumbnails and tree codes of the fruit the rows matched, offered or were decided as, looked up once per answer. */
  const namesOf = (rows: BatchRowRecord[]) =>
    deps.fruitSummaries([
      ...new Set(
        rows
          .flatMap((r) => [r.fruit_id, r.label?.correct_id, ...(r.candidates ?? []).map((c) => c.individual_id)])
          .filter((x): x is string => !!x),
      ),
    ]);

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
          await deps.queue.enqueue(
            'fruit_batch_item',
            { owner_id: caller.account_id, batch_id: id, index: r.idx, cid: r.cid!, filters },
            { jobId: `fbatch-${id}-${r.idx}` },
          );
        }
      } catch (err) {
        const cids = await repo.remove(id, scopeOfCaller(caller));
        await dropUnusedBlobs(cids ?? []).catch(() => undefined);
        throw err;
      }
      return { batch_id: id, total: rows.length, status: 'running' as const, links: links(id) };
    },

    async get(caller: Caller, id: string, lang: Lang) {
      const b = await owned(caller, id);
      const [counts, rows] = await Promise.all([repo.counts(id), repo.rows(id)]);
      const fruit = await namesOf(rows);
      return {
        batch_id: b.id,
        status: counts!.status,
        total: counts!.total,
        done: counts!.done,
        failed: counts!.failed,
        created_at: b.created_at,
        ...(counts!.status === 'done' && b.finished_at ? { finished_at: b.finished_at } : {}),
        rows: rows.map((r) => rowOut(r, lang, fruit)),
      };
    },

    async list(caller: Caller) {
      const batches = await repo.list(scopeOfCaller(caller));
      const extra = await listExtras(batches.map((b) => b.id));
      return batches.map((b) => ({
        batch_id: b.id,
        status: b.status,
        total: b.total,
        done: b.done,
        failed: b.failed,
        created_at: b.created_at,
        ...(b.finished_at ? { finished_at: b.finished_at } : {}),
        tree_id: b.tree_id,
        farm_id: b.farm_id,
        links: links(b.id),
        thumbnails: extra.get(b.id)?.thumbnails ?? [],
        tree: extra.get(b.id)?.tree ?? null,
      }));
    },

    async remove(caller: Caller, id: string) {
      const cids = await repo.remove(id, scopeOfCaller(caller));
      if (!cids) throw ERRORS.notFound();
      // Jobs still queued for this batch find no row and do nothing.
      await dropUnusedBlobs(cids);
      return { batch_id: id, deleted: true as const };
    },

    async csv(caller: Caller, id: string, lang: Lang): Promise<string> {
      await owned(caller, id);
      const lines = [CSV_HEADER.join(',')];
      const rows = await repo.rows(id);
      const fruit = await namesOf(rows);
      for (const r of rows.map((x) => rowOut(x, lang, fruit))) {
        lines.push(
          CSV_HEADER.map((k) => csvCell(k === 'views' ? r.views.map((v) => v.file_name).join(CSV_VIEW_SEPARATOR) : r[k])).join(','),
        );
      }
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
        await sleep(deps.pollMs, undefined, { signal }).catch(() => undefined);
      }
    },
  };
}

export type FruitBatchService = ReturnType<typeof createFruitBatchService>;
