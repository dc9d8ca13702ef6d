/**
 * Writes an export into a folder, page by page, from the service's export route: `images/`,
 * `manifest.csv`, `manifest.jsonl`, `export.json`. Resumable: `.cursor` holds the next page's
 * cursor and the manifests' byte lengths, so a run that stopped anywhere truncates the half-written
 * page and carries on with no row missing or doubled.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync, appendFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';

export interface FolderExportOptions {
  /** Service base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  token: string;
  out: string;
  /** Admin route: one owner's data, or every owner's with `all`. */
  owner?: string;
  all?: boolean;
  limit?: number;
  /** Called after each page with items done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Stop after this many pages (tests of resumption). */
  maxPages?: number;
}

interface State {
  cursor: string | null;
  csv: number;
  jsonl: number;
}

const size = (p: string): number => (existsSync(p) ? statSync(p).size : 0);

/** Downloads every remaining page into `out`. @returns rows written by this run and whether the export is complete. */
export async function exportToFolder(o: FolderExportOptions): Promise<{ rows: number; complete: boolean; total: number }> {
  mkdirSync(join(o.out, 'images'), { recursive: true });
  const statePath = join(o.out, '.cursor');
  const csvPath = join(o.out, 'manifest.csv');
  const jsonlPath = join(o.out, 'manifest.jsonl');
  let state: State = existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : { cursor: null, csv: 0, jsonl: 0 };
  if (!existsSync(statePath) && existsSync(join(o.out, 'export.json'))) return { rows: 0, complete: true, total: 0 };
  let rows = 0;
  let total = 0;
  for (let pages = 0; o.maxPages === undefined || pages < o.maxPages; pages++) {
    // Drop whatever a stopped run appended after the last completed page.
    for (const [p, n] of [
      [csvPath, state.csv],
      [jsonlPath, state.jsonl],
    ] as const)
      if (existsSync(p) && size(p) > n) truncateSync(p, n);
    const q = new URLSearchParams({
      limit: String(o.limit ?? 1000),
      ...(state.cursor ? { cursor: state.cursor } : {}),
      ...(o.owner ? { owner_id: o.owner } : {}),
    });
    const route = o.owner || o.all ? '/api/admin/datasci/export' : '/api/datasci/export';
    const res = await fetch(`${o.url}${route}?${q.toString()}`, { headers: { authorization: `Bearer ${o.token}` } });
    if (res.status !== 200) throw new Error(`export page: HTTP ${res.status} ${await res.text()}`);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    for (const [name, bytes] of Object.entries(files)) if (name.startsWith('images/')) writeFileSync(join(o.out, name), bytes);
    const csv = new TextDecoder().decode(files['manifest.csv']!);
    appendFileSync(csvPath, size(csvPath) === 0 ? csv : csv.slice(csv.indexOf('\n') + 1));
    appendFileSync(jsonlPath, files['manifest.jsonl']!);
    const meta = JSON.parse(new TextDecoder().decode(files['export.json']!)) as {
      rows: number;
      next_cursor: string | null;
      items_total: number;
    };
    rows += meta.rows;
    total = meta.items_total;
    const next = res.headers.get('x-export-next-cursor');
    state = { cursor: next, csv: size(csvPath), jsonl: size(jsonlPath) };
    const done = Number(res.headers.get('x-export-items-before') ?? 0) + (next ? Number(o.limit ?? 1000) : 0);
    o.onProgress?.(next ? Math.min(done, total) : total, total);
    if (!next) {
      writeFileSync(join(o.out, 'export.json'), JSON.stringify({ ...meta, next_cursor: null, complete: true }, null, 2) + '\n');
      rmSync(statePath, { force: true });
      return { rows, complete: true, total };
    }
    writeFileSync(statePath, JSON.stringify(state));
  }
  return { rows, complete: false, total };
}
