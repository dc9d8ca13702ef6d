/**
 * Held-out animal accuracy measured through the HTTP API equals the engine benchmark's:
 *
 *   npx tsx benchmarks/animal-api-accuracy.ts --protocol <dir>/protocol.json [--individuals 12]
 *     [--per-id 4] [--queries-per-id 2] [--open-set 6] [--species nyala|cattle] [--out file.json]
 *
 * 1. A subset of the protocol is chosen that the API can take as it is: individuals with at least
 *    3 gallery photos that pass animal enrolment (quality gate, an animal found), and queries that
 *    pass the identify quality gate. The subset is written as a protocol of its own (outside the
 *    repository; the photos are linked, never copied).
 * 2. benchmarks/accuracy.ts runs on that subset unchanged and reports its figures, including the
 *    calibration it fitted from the subset's gallery.
 * 3. The service is started (embedded mode) with that same calibration stored, every individual is
 *    enrolled through POST /api/animal/enroll and every query sent to POST /api/animal/identify.
 * 4. The verdict-based figures (those an API answer shows) are computed the same way and compared.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RecognitionEngine } from '../workers/src/vision/engine.js';
import { api, signup, startTestApp } from '../test/support/app.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';
import { calibrationsRepo } from '../shared/src/repos/calibrations.repo.js';

interface Protocol {
  name: string;
  kind: string;
  gallery: { id: string; path: string }[];
  queries: { path: string; expect: string | null }[];
}

const args = parseArgs(process.argv.slice(2));
const protocolPath = resolve(args.get('protocol') ?? '');
const proto = JSON.parse(readFileSync(protocolPath, 'utf8')) as Protocol;
const root = dirname(protocolPath);
// The species the enrol route requires (the catalogue refuses a bare "animal"): nyala-dev holds nyala, holstein-dev cattle.
const species = args.get('species') ?? (/nyala/i.test(root) ? 'nyala' : 'cattle');
const num = (k: string, d: number) => Number(args.get(k) ?? d);
const log = (m: string) => void process.stderr.write(`${m}\n`);
const engine = await RecognitionEngine.create();

/** Whether the service would take this photo: the same describe call the worker makes. */
async function passes(path: string, enrol: boolean): Promise<boolean> {
  try {
    await engine.describe(readFileSync(join(root, path)), { kind: 'animal', ...(enrol ? { subject: { require: true } } : {}) });
    return true;
  } catch {
    return false;
  }
}

async function chooseSubset(): Promise<Protocol> {
  const byId = new Map<string, string[]>();
  for (const g of proto.gallery) byId.set(g.id, [...(byId.get(g.id) ?? []), g.path]);
  const gallery: Protocol['gallery'] = [];
  const queries: Protocol['queries'] = [];
  let chosen = 0;
  for (const id of [...byId.keys()].sort()) {
    if (chosen >= num('individuals', 12)) break;
    const ok: string[] = [];
    for (const p of byId.get(id)!) if (ok.length < num('per-id', 4) && (await passes(p, true))) ok.push(p);
    const qs: string[] = [];
    for (const q of proto.queries.filter((x) => x.expect === id))
      if (qs.length < num('queries-per-id', 2) && (await passes(q.path, false))) qs.push(q.path);
    if (ok.length < 3 || !qs.length) continue;
    chosen++;
    gallery.push(...ok.map((path) => ({ id, path })));
    queries.push(...qs.map((path) => ({ path, expect: id })));
    log(`subset: ${id} (${ok.length} gallery, ${qs.length} queries)`);
  }
  for (const q of proto.queries.filter((x) => x.expect === null)) {
    if (queries.filter((x) => x.expect === null).length >= num('open-set', 6)) break;
    if (await passes(q.path, false)) queries.push(q);
  }
  return { ...proto, name: `${proto.name}-api-subset`, gallery, queries };
}

const subset = await chooseSubset();
const dir = mkdtempSync(join(os.tmpdir(), 'markless-api-acc-'));
symlinkSync(join(root, 'images'), join(dir, 'images'));
writeFileSync(join(dir, 'protocol.json'), JSON.stringify(subset));

// 2. The engine benchmark, unchanged, on the subset.
log('engine benchmark (benchmarks/accuracy.ts) on the subset');
const engineOut = join(dir, 'engine.json');
// The engine pass is told the species the API enrols, so both answer with the same kind's defaults.
execFileSync(
  'npx',
  [
    'tsx',
    'benchmarks/accuracy.ts',
    '--protocol',
    join(dir, 'protocol.json'),
    '--calib-samples',
    String(subset.gallery.length),
    '--species',
    species,
    '--out',
    engineOut,
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const eng = JSON.parse(readFileSync(engineOut, 'utf8'));

// 3. The service, with the calibration the benchmark fitted (handlers read it at start).
const dataDir = join(dir, 'data');
mkdirSync(dataDir);
let app = await startTestApp({ mode: 'embedded', dataDir });
// A subset too small for a fit of its own leaves no params: the benchmark then decided with the
// kind's defaults, and so does the service when nothing is stored.
if (eng.calibration.params)
  await calibrationsRepo.insert(app.container.db, 'animal', eng.calibration.params, { source: 'benchmarks/animal-api-accuracy.ts' });
await app.stop();
app = await startTestApp({ mode: 'embedded', dataDir, env: { JOB_WAIT_MS: '600000' } });
const owner = await signup(app.url, 'bench');
const form = (paths: string[], fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const p of paths) f.append('files', new Blob([readFileSync(join(root, p))], { type: 'image/jpeg' }), p.split('/').pop());
  return f;
};
const individualOf = new Map<string, string>();
for (const id of [...new Set(subset.gallery.map((g) => g.id))]) {
  const r = await api(app.url, 'POST', '/api/animal/enroll', {
    token: owner.token,
    body: form(
      subset.gallery.filter((g) => g.id === id).map((g) => g.path),
      { species, farm_id: 'bench' },
    ),
  });
  if (r.status !== 200) throw new Error(`enrol ${id}: ${r.status} ${r.text}`);
  individualOf.set(r.json.individual_id, id);
}
const answers: { expect: string | null; verdict: string; top: string | null }[] = [];
for (const q of subset.queries) {
  const r = await api(app.url, 'POST', '/api/animal/identify', { token: owner.token, body: form([q.path], {}) });
  if (r.status !== 200) throw new Error(`identify ${q.path}: ${r.status} ${r.text}`);
  answers.push({
    expect: q.expect,
    verdict: r.json.verdict,
    top: r.json.candidates[0] ? individualOf.get(r.json.candidates[0].individual_id)! : null,
  });
}
await app.stop();

// 4. The same definitions as benchmarks/accuracy.ts, for the figures an API answer carries.
const enrolled = answers.filter((a) => a.expect !== null);
const right = (a: (typeof answers)[number]) => a.expect !== null && a.top === a.expect;
const apiFigures = {
  match_rate: answers.filter((a) => a.verdict === 'match').length / answers.length,
  correct_match_rate: answers.filter((a) => a.verdict === 'match' && right(a)).length / Math.max(1, enrolled.length),
  false_match_rate: answers.filter((a) => a.verdict === 'match' && !right(a)).length / answers.length,
  uncertain_rate: answers.filter((a) => a.verdict === 'uncertain').length / answers.length,
};
const engineFigures = Object.fromEntries(Object.keys(apiFigures).map((k) => [k, eng[k] as number]));
const result = {
  dataset: subset.name,
  individuals: individualOf.size,
  n_gallery: subset.gallery.length,
  n_queries: subset.queries.length,
  n_queries_open_set: subset.queries.filter((q) => q.expect === null).length,
  api: apiFigures,
  engine: engineFigures,
  engine_top1: eng.top1,
  equal: Object.keys(apiFigures).every((k) => Math.abs(apiFigures[k as keyof typeof apiFigures] - engineFigures[k]!) < 1e-9),
  note: 'top-1 of the full ranking is not in an API answer (no_match shows no candidates), so only verdict-based figures are compared',
  calibration: eng.calibration.params,
  machine: { ...machineInfo(engine.provider), ...(args.has('note') ? { note: args.get('note') } : {}) },
  date: new Date().toISOString(),
};
rmSync(dir, { recursive: true, force: true });
const out = args.get('out');
saveResult(out, result);
console.log(JSON.stringify(result));
process.exit(0);
