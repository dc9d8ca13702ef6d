/**
 * Several views per fruit in a batch, on real peel, through the HTTP API as served:
 *
 *   npm run bench:fruit-views -- [--protocol ../shared/datasets/apple-dev/protocol.json] [--out benchmarks/results/fruit-views-<dataset>-<date>.json]
 *
 * The service is started (embedded mode), every gallery identity is enrolled through
 * POST /api/fruit/enroll with its gallery photos, and the protocol's queries are sent twice through
 * POST /api/fruit/batch:
 * - single photos: each query photo a `files` part of its own (one row per photo, as before views);
 * - grouped views: a .zip with one folder per fruit and day (`<id>-<day>/<camera>.jpg`), the
 *   camera positions of one apple on one day as one fruit, decided as one query (one row per fruit).
 * Open-set queries (`expect: null`, never enrolled) are grouped the same way by their folder.
 * Reported per way: rows, correct `match` (to the expected fruit), false `match` (to a stranger or
 * to another fruit), `uncertain`, `no_match`, failed rows, and the top candidate being right on the
 * enrolled rows. Nothing is fitted here: the verdicts are the service's own.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { zipSync } from 'fflate';
import { api, signup } from '../test/support/app.js';
import { batchForm, untilDone } from '../test/support/fruit-batch.js';
import { embedded } from './stacks.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';

interface Protocol {
  name: string;
  gallery: { id: string; path: string }[];
  queries: { path: string; expect: string | null }[];
}

const args = parseArgs(process.argv.slice(2));
const protocolPath = path.resolve(args.get('protocol') ?? '../shared/datasets/apple-dev/protocol.json');
const root = path.dirname(protocolPath);
const proto = JSON.parse(await readFile(protocolPath, 'utf8')) as Protocol;
const dataset = path.basename(root);
const out = args.get('out') ?? `benchmarks/results/fruit-views-${dataset}-${new Date().toISOString().slice(0, 10)}.json`;
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const bytes = (p: string) => readFile(path.join(root, p));

/** `images/<id>/<yyyy_mm_dd>_<camera>.jpg` → the folder's id and the day: one apple on one day. */
const groupOf = (p: string) => {
  const [, folder, file] = p.split('/');
  return { key: `${folder}-${file!.slice(0, 10)}`, camera: file!.slice(11) };
};

interface Tally {
  rows: number;
  enrolled_rows: number;
  open_set_rows: number;
  correct_match: number;
  false_match: number;
  uncertain: number;
  no_match: number;
  failed: number;
  top1: number;
}

function tally(
  rows: { verdict?: string; fruit_id?: string; status: string }[],
  expected: (string | null)[],
  fruitOf: Map<string, string>,
): Tally {
  const t: Tally = {
    rows: rows.length,
    enrolled_rows: 0,
    open_set_rows: 0,
    correct_match: 0,
    false_match: 0,
    uncertain: 0,
    no_match: 0,
    failed: 0,
    top1: 0,
  };
  rows.forEach((r, i) => {
    const want = expected[i] == null ? null : fruitOf.get(expected[i]!)!;
    if (want) t.enrolled_rows++;
    else t.open_set_rows++;
    if (r.status === 'failed') return void t.failed++;
    if (want && r.fruit_id === want) t.top1++;
    if (r.verdict === 'match') {
      if (want && r.fruit_id === want) t.correct_match++;
      else t.false_match++;
    } else if (r.verdict === 'uncertain') t.uncertain++;
    else t.no_match++;
  });
  return t;
}

/**
 * Diagnostic, not served: the highest probability any wrong top candidate got (another fruit, or
 * any fruit for a stranger), and how many rows had the right fruit first above it. It says how far
 * apart the fused scores are; a threshold at that point is fitted on the very rows it is judged
 * on and, from this few rows, vouches for nothing.
 */
function separation(
  rows: { probability?: number | null; fruit_id?: string; status: string }[],
  expected: (string | null)[],
  fruitOf: Map<string, string>,
) {
  let wrong = 0;
  const right: number[] = [];
  rows.forEach((r, i) => {
    if (r.status !== 'done' || r.probability == null) return;
    const want = expected[i] == null ? null : fruitOf.get(expected[i]!)!;
    if (want && r.fruit_id === want) right.push(r.probability);
    else wrong = Math.max(wrong, r.probability);
  });
  return { highest_wrong_probability: wrong, right_first_above_it: right.filter((p) => p > wrong).length };
}

const stack = await embedded();
try {
  const owner = await signup(stack.url, 'views');
  const fruitOf = new Map<string, string>();
  const ids = [...new Set(proto.gallery.map((g) => g.id))];
  for (const id of ids) {
    const form = new FormData();
    for (const g of proto.gallery.filter((x) => x.id === id)) form.append('files', new Blob([await bytes(g.path)]), path.basename(g.path));
    const r = await api(stack.url, 'POST', '/api/fruit/enroll', { token: owner.token, body: form });
    if (r.status !== 200) throw new Error(`enrol ${id}: ${r.status} ${r.text}`);
    fruitOf.set(id, r.json.fruit_id);
  }
  log(`enrolled ${ids.length} fruit from ${proto.gallery.length} photos`);

  // Single photos: one `files` part each, names that name no fruit.
  const singles = await Promise.all(
    proto.queries.map(async (q, i) => ({ name: `q${String(i).padStart(3, '0')}.jpg`, bytes: await bytes(q.path) })),
  );
  const s = await api(stack.url, 'POST', '/api/fruit/batch', { token: owner.token, body: batchForm(singles) });
  if (s.status !== 202) throw new Error(`single batch: ${s.status} ${s.text}`);
  const single = await untilDone(stack, owner.token, s.json.batch_id, 1_800_000);
  log(`single photos: ${single.total} rows`);

  // Grouped: one folder per apple and day, its camera positions as views.
  const groups = new Map<string, { expect: string | null; files: string[] }>();
  for (const q of proto.queries) {
    const g = groupOf(q.path);
    const entry = groups.get(g.key) ?? { expect: q.expect, files: [] };
    if (entry.expect !== q.expect) throw new Error(`group ${g.key} mixes identities`);
    entry.files.push(q.path);
    groups.set(g.key, entry);
  }
  const zip: Record<string, Uint8Array> = {};
  for (const [key, g] of groups) for (const f of g.files) zip[`${key}/${groupOf(f).camera}`] = new Uint8Array(await bytes(f));
  const v = await api(stack.url, 'POST', '/api/fruit/batch', { token: owner.token, body: batchForm([], {}, zipSync(zip, { level: 0 })) });
  if (v.status !== 202) throw new Error(`grouped batch: ${v.status} ${v.text}`);
  const grouped = await untilDone(stack, owner.token, v.json.batch_id, 1_800_000);
  log(`grouped views: ${grouped.total} rows`);
  const groupExpect = new Map([...groups].map(([k, g]) => [k, g.expect]));
  const singleExpect = proto.queries.map((q) => q.expect);
  const groupedExpect = grouped.rows.map((r: { file_name: string }) => groupExpect.get(r.file_name) ?? null);

  const result = {
    benchmark: `fruit batch, single photos vs grouped views per fruit, through the HTTP API (embedded): npm run bench:fruit-views -- --protocol ${path.relative(process.cwd(), protocolPath)}`,
    date: new Date().toISOString().slice(0, 10),
    dataset,
    machine: machineInfo((await api(stack.url, 'GET', '/api/health')).json.recognition?.provider ?? 'unknown'),
    enrolled: { fruit: ids.length, photos: proto.gallery.length },
    grouping: 'the camera positions of one apple on one day (images/<id>/<day>_<camera>.jpg) as one fruit: a folder per fruit in the zip',
    calibration:
      'as served: fruit has no shipped kind calibration and this owner no fitted one, so the default (match at 0.9) decides one photo; with no threshold vouched for several photos, a fruit of several views is a match only when the fused ranking and every view alone say match to the same fruit (workers/src/vision/decide.ts, decideSeveral)',
    single_photos: { ...tally(single.rows, singleExpect, fruitOf), separation: separation(single.rows, singleExpect, fruitOf) },
    grouped_views: {
      ...tally(grouped.rows, groupedExpect, fruitOf),
      separation: separation(grouped.rows, groupedExpect, fruitOf),
      views_per_fruit: Object.fromEntries(
        [...groups.values()].reduce((m, g) => m.set(g.files.length, (m.get(g.files.length) ?? 0) + 1), new Map<number, number>()),
      ),
    },
    rows: {
      single: single.rows.map((r: any, i: number) => ({
        query: proto.queries[i]!.path,
        expect: proto.queries[i]!.expect,
        verdict: r.verdict ?? null,
        right: r.fruit_id != null && r.fruit_id === fruitOf.get(proto.queries[i]!.expect ?? ''),
        probability: r.probability ?? null,
        status: r.status,
      })),
      grouped: grouped.rows.map((r: any) => ({
        fruit: r.file_name,
        expect: groupExpect.get(r.file_name) ?? null,
        views: r.views.map((x: { file_name: string; status: string }) => `${x.file_name}:${x.status}`),
        verdict: r.verdict ?? null,
        right: r.fruit_id != null && r.fruit_id === fruitOf.get(groupExpect.get(r.file_name) ?? ''),
        probability: r.probability ?? null,
        status: r.status,
      })),
    },
  };
  saveResult(out, result);
  log(JSON.stringify({ single_photos: result.single_photos, grouped_views: result.grouped_views }, null, 1));
  log(`saved ${out}`);
} finally {
  await stack.stop();
}
