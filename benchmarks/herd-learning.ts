/**
 * A small herd's learning loop through the HTTP API, zero-shot and after learning side by side
 * (issue 23: "adoption that can only help", measured as served):
 *
 *   npx tsx benchmarks/herd-learning.ts --protocol ../shared/datasets/holstein-dev/protocol.json
 *     [--individuals 7] [--open-set-every 8] [--recipe backbone|linear] [--groups 1,2,3,4] [--no-learning] [--out file.json]
 *
 * 1. The service starts (embedded mode, learning loop off so nothing trains behind our back) and
 *    one owner enrols the first `individuals` animals of the protocol by id with every gallery
 *    photo (POST /api/animal/enroll, then POST /api/animal/{did}/photos 20 at a time).
 * 2. The owner's calibration is fitted for the base pipeline, as `npm run train -- --calibrate`
 *    does, and every query goes to POST /api/animal/identify: the zero-shot pass as served.
 * 3. A `train_metric` job with the recipe is queued, as the loop queues it; the worker trains,
 *    judges the candidate on the served pipeline (workers/src/learn/served-gate.ts), adopts or
 *    refuses it, refits the calibration for whatever now serves and records the run, which is read
 *    back from GET /api/learning/animal.
 * 4. Every query is sent again: the learned pass as served.
 *
 * `--groups 1,2,3,4` also sends several photos of one animal as one query (consecutive query
 * photos of one individual, never-enrolled ones included, k at a time: several `files`), in each
 * pass; `--no-learning` stops after the zero-shot passes.
 *
 * Queries: every enrolled query of the chosen animals, and every `open-set-every`-th query of an
 * animal never enrolled. top-1 = the ranking's first (first candidate, or first of `closest` on
 * `no_match`) is the right animal, over enrolled queries.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { RecognitionEngine } from '../workers/src/vision/engine.js';
import { createPools } from '../workers/src/recognition/pool.js';
import { createLearnedGalleries } from '../workers/src/learn/gallery.js';
import { fitOwnerCalibration } from '../workers/src/recognition/owner-calibration.js';
import { api, signup, startTestApp } from '../test/support/app.js';
import { datasetForm } from '../test/support/datasets.js';
import { machineInfo, parseArgs, percentile, saveResult } from './machine.js';

interface Protocol {
  name: string;
  gallery: { id: string; path: string }[];
  queries: { path: string; expect: string | null }[];
}

const args = parseArgs(process.argv.slice(2));
const protocolPath = resolve(args.get('protocol') ?? '../shared/datasets/holstein-dev/protocol.json');
const proto = JSON.parse(readFileSync(protocolPath, 'utf8')) as Protocol;
const root = dirname(protocolPath);
const nIndividuals = Number(args.get('individuals') ?? 7);
const openEvery = Number(args.get('open-set-every') ?? 8);
const recipe = (args.get('recipe') ?? 'backbone') as 'backbone' | 'linear';
const species = args.get('species') ?? (/nyala/i.test(root) ? 'nyala' : 'cattle');
const groupSizes = (args.get('groups') ?? '1').split(',').map(Number);
const learn = !args.has('no-learning');
const log = (m: string) => void process.stderr.write(`${m}\n`);

const herd = [...new Set(proto.gallery.map((g) => g.id))].sort().slice(0, nIndividuals);
const queries = [
  ...proto.queries.filter((q) => q.expect !== null && herd.includes(q.expect)),
  ...proto.queries.filter((q) => q.expect === null).filter((_, i) => i % openEvery === 0),
];

const app = await startTestApp({ mode: 'embedded', env: { JOB_WAIT_MS: '600000', LEARN_AFTER_NEW: '0' } });
const owner = await signup(app.url, 'herd');
const engine = await RecognitionEngine.create();
try {
  // 1. Enrol the herd, every gallery photo, as an owner would over time. A photo refused outright
  // (not only warned about) is counted and left out, and the rest of its request is sent again.
  const individualOf = new Map<string, string>();
  let sent = 0;
  let accepted = 0;
  const refused: { file: string; reasons: unknown }[] = [];
  const send = async (path: string, files: string[], fields: Record<string, string>) => {
    sent += files.length;
    for (;;) {
      if (!files.length) return null;
      const r = await api(app.url, 'POST', path, {
        token: owner.token,
        body: datasetForm(root, files, { ...fields, accept_warnings: 'true' }),
      });
      if (r.status === 200) {
        accepted += r.json.images.length;
        return r.json;
      }
      // Fewer than the 3 photos enrolment requires were left after refusals: the animal is left out.
      if (r.status === 422 && r.json?.code === 'validation_failed' && r.json?.detail === 'files') return null;
      if (r.status !== 422 || !Array.isArray(r.json?.refused)) throw new Error(`${path}: ${r.status} ${r.text}`);
      const out = new Set<number>(r.json.refused.map((x: { index: number }) => x.index));
      for (const x of r.json.refused) refused.push({ file: files[x.index]!, reasons: x.reasons });
      files = files.filter((_, i) => !out.has(i));
    }
  };
  for (const id of herd) {
    const photos = proto.gallery.filter((g) => g.id === id).map((g) => g.path);
    const first = await send('/api/animal/enroll', photos.slice(0, 20), { species, farm_id: 'bench-herd' });
    if (!first) {
      // Its query photos now show an animal never enrolled: they stay, as strangers.
      log(`left out ${id}: fewer than 3 of its photos were accepted`);
      for (const q of queries) if (q.expect === id) q.expect = null;
      continue;
    }
    individualOf.set(first.individual_id, id);
    for (let i = 20; i < photos.length; i += 20)
      await send(`/api/animal/${encodeURIComponent(first.animal_did)}/photos`, photos.slice(i, i + 20), {});
    log(`enrolled ${id}: ${photos.length} photos sent`);
  }

  // Queries k at a time: consecutive photos (path order) of one individual, strangers by their folder.
  const groupsOf = (k: number) => {
    const by = new Map<string, typeof queries>();
    for (const q of [...queries].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const key = q.expect ?? `stranger:${dirname(q.path)}`;
      by.set(key, [...(by.get(key) ?? []), q]);
    }
    return [...by.values()].flatMap((list) => Array.from({ length: Math.floor(list.length / k) }, (_, i) => list.slice(i * k, i * k + k)));
  };
  const pass = async (name: string, k = 1) => {
    const answers: { expect: string | null; verdict: string; top: string | null; p: number | null; ms: number }[] = [];
    for (const group of k === 1 ? queries.map((q) => [q]) : groupsOf(k)) {
      const q = group[0]!;
      const t = performance.now();
      const r = await api(app.url, 'POST', '/api/animal/identify', {
        token: owner.token,
        body: datasetForm(
          root,
          group.map((x) => x.path),
        ),
      });
      if (r.status !== 200) throw new Error(`identify ${q.path}: ${r.status} ${r.text}`);
      // The ranking's first: the first candidate, or on `no_match` the first of the review's closest.
      const top = r.json.candidates?.[0] ?? r.json.closest?.[0];
      answers.push({
        expect: q.expect,
        verdict: r.json.verdict,
        top: top ? (individualOf.get(top.individual_id) ?? null) : null,
        p: r.json.candidates?.[0]?.probability ?? null,
        ms: performance.now() - t,
      });
    }
    const enrolled = answers.filter((a) => a.expect !== null);
    const right = (a: (typeof answers)[number]) => a.expect !== null && a.top === a.expect;
    const share = (v: string) => answers.filter((a) => a.verdict === v).length / answers.length;
    const figures = {
      pass: name,
      photos_per_query: k,
      queries: answers.length,
      queries_never_enrolled: answers.length - enrolled.length,
      top1: enrolled.filter(right).length / enrolled.length,
      correct_match_rate: answers.filter((a) => a.verdict === 'match' && right(a)).length / enrolled.length,
      false_matches: answers.filter((a) => a.verdict === 'match' && !right(a)).length,
      false_match_rate: answers.filter((a) => a.verdict === 'match' && !right(a)).length / answers.length,
      verdict_shares: { match: share('match'), uncertain: share('uncertain'), no_match: share('no_match') },
      ms_identify_p50: percentile(
        answers.map((a) => a.ms),
        50,
      ),
      ms_identify_p95: percentile(
        answers.map((a) => a.ms),
        95,
      ),
    };
    log(`${name}: ${JSON.stringify(figures)}`);
    return figures;
  };

  // 2. The base pipeline with the owner's own calibration: what serves when no model is adopted.
  const deps = {
    c: app.container,
    engine,
    pools: createPools(app.container, engine),
    learned: createLearnedGalleries(app.container, engine),
  };
  const zeroCal = await fitOwnerCalibration(deps, owner.id, 'animal', 'all');
  const zeroShot = await pass('zero-shot');
  const groups = groupSizes.filter((x) => x > 1);
  const groupPasses = async (prefix: string) => {
    const out = [];
    for (const k of groups) out.push(await pass(`${prefix}, ${k} photos a query`, k));
    return out;
  };
  const zeroShotGroups = await groupPasses('zero-shot');
  const zeroCalInfo = (
    await api(app.url, 'POST', '/api/animal/identify', { token: owner.token, body: datasetForm(root, [queries[0]!.path]) })
  ).json.calibration;
  const common = {
    benchmark: 'herd-learning',
    dataset: `${proto.name}, first ${herd.length} individuals by id`,
    n_gallery_sent: sent,
    n_gallery_accepted: accepted,
    refused,
    n_queries: queries.length,
    n_queries_open_set: queries.filter((q) => q.expect === null).length,
    zero_shot_calibration: {
      pipeline: zeroCal.pipeline,
      fitted: zeroCal.report.params !== null,
      n: zeroCal.report.n,
      auc: zeroCal.report.auc,
      threshold: zeroCal.report.threshold,
      fmr_upper: zeroCal.report.fmr_upper,
      reason: zeroCal.report.reason,
      served: zeroCalInfo,
    },
  };
  if (!learn) {
    const result = {
      ...common,
      learning: 'skipped (--no-learning)',
      passes: [zeroShot, ...zeroShotGroups],
      machine: machineInfo(engine.provider),
      date: new Date().toISOString(),
    };
    saveResult(args.get('out'), result);
    console.log(
      JSON.stringify({
        passes: result.passes.map((p) => ({
          k: p.photos_per_query,
          top1: p.top1,
          correct_match: p.correct_match_rate,
          false_matches: p.false_matches,
          queries: p.queries,
        })),
      }),
    );
    await app.stop();
    process.exit(0);
  }

  // 3. One learning run, queued as the loop queues it, and its recorded decision.
  const t0 = performance.now();
  await app.container.queue.enqueue('train_metric', { owner_id: owner.id, kind: 'animal', recipe }, { jobId: `bench-learn-${Date.now()}` });
  let learning: any;
  for (;;) {
    learning = (await api(app.url, 'GET', '/api/learning/animal', { token: owner.token })).json;
    if (learning.runs?.[0] && learning.runs[0].status !== 'running') break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  const trainMs = performance.now() - t0;
  const run = learning.runs[0];
  log(`learning run: ${run.reason ?? run.status}`);

  // 4. The same queries through whatever now serves.
  const learned = await pass('after the learning run');
  const learnedGroups = await groupPasses('after the learning run');
  const result = {
    ...common,
    recipe,
    learning_run: {
      status: run.status,
      reason: run.reason,
      adopted: learning.adopted,
      gate: run.decision?.report?.gate ?? run.decision?.report ?? null,
      calibration: run.decision?.calibration ?? null,
      wall_ms: Math.round(trainMs),
    },
    passes: [zeroShot, learned, ...zeroShotGroups, ...learnedGroups],
    top1_change_points: Math.round((learned.top1 - zeroShot.top1) * 1000) / 10,
    machine: machineInfo(engine.provider),
    date: new Date().toISOString(),
  };
  saveResult(args.get('out'), result);
  console.log(
    JSON.stringify({
      top1: [zeroShot.top1, learned.top1],
      correct_match: [zeroShot.correct_match_rate, learned.correct_match_rate],
      false_matches: [zeroShot.false_matches, learned.false_matches],
      run: run.status,
    }),
  );
} finally {
  await app.stop();
}
process.exit(0);
