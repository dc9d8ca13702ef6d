/**
 * A fleet of owners through the HTTP API, as served: does a new owner decide from the first answer
 * once other owners' labelled answers are pooled (docs/recognition.md, "Calibration pooled across
 * owners")?
 *
 *   npx tsx benchmarks/fleet.ts [--protocol ../shared/datasets/holstein-dev/protocol.json]
 *     [--owners 5] [--per-herd 11] [--newcomer 12] [--photos 8] [--queries-per-animal 6]
 *     [--strangers 70] [--cross-strangers 0] [--newcomer-strangers 40] [--shadow-share 0.2] [--pairs] [--out file.json]
 *
 * 1. The dataset's animals are split into herds by id: `owners` herds of `per-herd` animals, one
 *    account each, and the newcomer's herd of the last `newcomer` animals. Each owner enrols its
 *    herd (`photos` gallery photos an animal) through POST /api/animal/enroll.
 * 2. Every owner asks about its own animals (`queries-per-animal` query photos each) and about
 *    `strangers` photos of animals never enrolled anywhere and `cross-strangers` photos of animals of
 *    the other owners' herds (never enrolled in its account), and labels each answer with the truth
 *    through POST /api/animal/identify_verdict, as a farmer confirming or correcting would.
 * 3. The newcomer enrols its herd and asks its queries: the first pass, before any pooled fit.
 * 4. The operator runs the pooled fit (POST /api/admin/calibration/pooled/run); the newcomer asks
 *    the same queries again: the pass as a new owner hears it once the fleet's labels are pooled.
 *
 * The newcomer's own labels are never sent, so nothing it is measured on was fitted on.
 *
 * With `--pairs`, every one of these photos is also asked a second time in a two-photo query: the
 * photo and the next one of the same animal (the same folder, in name order), as a farmer adds
 * "another angle of this one". The pooled fit then has answers for its two-photo cell, and each pass
 * is reported for single photos and for pairs apart.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { api, signup, startTestApp } from '../test/support/app.js';
import { signupAdmin } from '../test/support/admin.js';
import { datasetForm } from '../test/support/datasets.js';
import { writeFleetPlots } from './fleet-plots.js';
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
const num = (k: string, d: number) => Number(args.get(k) ?? d);
const species = args.get('species') ?? (/nyala/i.test(root) ? 'nyala' : 'cattle');
const log = (m: string) => void process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

const ids = [...new Set(proto.gallery.map((g) => g.id))].sort();
const nOwners = num('owners', 5);
const perHerd = num('per-herd', 11);
const herds = Array.from({ length: nOwners }, (_, i) => ids.slice(i * perHerd, (i + 1) * perHerd));
const newcomerHerd = ids.slice(-num('newcomer', 12));
if (herds.flat().some((id) => newcomerHerd.includes(id))) throw new Error('the herds overlap the newcomer: fewer owners or smaller herds');
const strangerPhotos = proto.queries.filter((q) => q.expect === null);
const pairs = args.has('pairs');
/** One query as asked: one photo, or two of one animal. */
type Query = { paths: string[]; expect: string | null };
/** The photos as single-photo queries, and with --pairs also as consecutive pairs within each animal's folder. */
const asQueries = (photos: Protocol['queries']): Query[] => {
  const singles = photos.map((q) => ({ paths: [q.path], expect: q.expect }));
  if (!pairs) return singles;
  const byFolder = new Map<string, Protocol['queries']>();
  for (const q of photos) byFolder.set(dirname(q.path), [...(byFolder.get(dirname(q.path)) ?? []), q]);
  const twos = [...byFolder.values()].flatMap((list) => {
    const sorted = [...list].sort((a, b) => (a.path < b.path ? -1 : 1));
    return sorted
      .slice(0, sorted.length - (sorted.length % 2))
      .flatMap((q, i) => (i % 2 ? [] : [{ paths: [q.path, sorted[i + 1]!.path], expect: q.expect }]));
  });
  return [...singles, ...twos];
};
const queriesOf = (herd: string[]) =>
  herd.flatMap((id) =>
    proto.queries
      .filter((q) => q.expect === id)
      .sort((a, b) => (a.path < b.path ? -1 : 1))
      .slice(0, num('queries-per-animal', 6)),
  );

const app = await startTestApp({
  mode: 'embedded',
  // A fleet's labels arrive from many phones; here they come from one process, faster than any owner sends.
  env: {
    JOB_WAIT_MS: '600000',
    LEARN_AFTER_NEW: '0',
    CALIBRATION_POOL_INTERVAL_S: '0',
    RATE_LIMIT_PER_MIN: '100000',
    // --shadow-share: the share of each owner's newest answers kept from the fit to shadow-score it (default as served).
    ...(args.has('shadow-share') ? { CALIBRATION_POOL_SHADOW_SHARE: String(args.get('shadow-share')) } : {}),
  },
});
const t0 = performance.now();
try {
  const admin = await signupAdmin(app, 'fleet_operator');

  /** Enrols a herd; answers the individual id → dataset id map. A refused photo is left out and the rest sent again. */
  const enrol = async (token: string, herd: string[], farm: string) => {
    const of = new Map<string, { id: string; did: string }>();
    for (const id of herd) {
      let files = proto.gallery
        .filter((g) => g.id === id)
        .map((g) => g.path)
        .slice(0, num('photos', 8));
      for (;;) {
        if (!files.length) break;
        const r = await api(app.url, 'POST', '/api/animal/enroll', {
          token,
          body: datasetForm(root, files, { species, farm_id: farm, accept_warnings: 'true' }),
        });
        if (r.status === 200) {
          of.set(r.json.individual_id, { id, did: r.json.animal_did });
          break;
        }
        if (r.status !== 422 || !Array.isArray(r.json?.refused)) throw new Error(`enrol ${id}: ${r.status} ${r.text}`);
        const out = new Set<number>(r.json.refused.map((x: { index: number }) => x.index));
        files = files.filter((_, i) => !out.has(i));
      }
    }
    return of;
  };

  let refusedQueries = 0;
  type Answer = {
    path: string;
    views: number;
    /** The top candidate's probability. */
    p: number | null;
    expect: string | null;
    verdict: string;
    top: string | null;
    source: string;
    ms: number;
    query_id: string;
    did: string | null;
  };
  const ask = async (token: string, of: Map<string, { id: string; did: string }>, qs: Query[]) => {
    const out: Answer[] = [];
    for (const q of qs) {
      const t = performance.now();
      const r = await api(app.url, 'POST', '/api/animal/identify', { token, body: datasetForm(root, q.paths) });
      // A photo the quality gate refuses (blurred, no animal) is no answer: counted, not labelled.
      if (r.status === 422) {
        refusedQueries++;
        continue;
      }
      if (r.status !== 200) throw new Error(`identify ${q.paths.join(' + ')}: ${r.status} ${r.text}`);
      const top = r.json.candidates?.[0] ?? r.json.closest?.[0];
      const mine = top ? of.get(top.individual_id) : undefined;
      const truth = q.expect ? [...of.values()].find((v) => v.id === q.expect) : undefined;
      out.push({
        path: q.paths.join(' + '),
        views: q.paths.length,
        p: typeof top?.probability === 'number' ? top.probability : null,
        // An animal of another owner's herd is a stranger here.
        expect: truth ? q.expect : null,
        verdict: r.json.verdict,
        top: mine?.id ?? null,
        source: r.json.calibration?.source ?? 'none',
        ms: performance.now() - t,
        query_id: r.json.query_id,
        did: truth?.did ?? null,
      });
    }
    return out;
  };
  const figures = (name: string, answers: Answer[]) => {
    const enrolled = answers.filter((a) => a.expect !== null);
    const right = (a: Answer) => a.expect !== null && a.top === a.expect;
    const count = (f: (a: Answer) => boolean) => answers.filter(f).length;
    const f = {
      pass: name,
      queries: answers.length,
      queries_never_enrolled: answers.length - enrolled.length,
      top1: enrolled.filter(right).length / enrolled.length,
      correct_match: count((a) => a.verdict === 'match' && right(a)),
      correct_match_rate: count((a) => a.verdict === 'match' && right(a)) / enrolled.length,
      false_matches: count((a) => a.verdict === 'match' && !right(a)),
      uncertain: count((a) => a.verdict === 'uncertain'),
      no_match: count((a) => a.verdict === 'no_match'),
      calibration_sources: Object.fromEntries([...new Set(answers.map((a) => a.source))].map((s) => [s, count((a) => a.source === s)])),
      ms_identify_p50: percentile(
        answers.map((a) => a.ms),
        50,
      ),
    };
    log(`${name}: ${JSON.stringify(f)}`);
    return f;
  };

  const ones = (answers: Answer[]) => answers.filter((a) => a.views === 1);
  const twos = (answers: Answer[]) => answers.filter((a) => a.views === 2);

  // 1–2. The fleet: each owner enrols, asks and labels.
  const fleet = [];
  const fleetPairs = [];
  let labelled = 0;
  for (const [i, herd] of herds.entries()) {
    const o = await signup(app.url, `fleet${i}`);
    const of = await enrol(o.token, herd, `farm-${i}`);
    const strangers = strangerPhotos.slice(i * num('strangers', 70), (i + 1) * num('strangers', 70));
    // Animals of the other owners' herds are strangers to this one (never enrolled in this account).
    const others = queriesOf(herds.filter((_, j) => j !== i).flat());
    const cross = num('cross-strangers', 0);
    strangers.push(...others.filter((_, k) => cross > 0 && k % Math.max(1, Math.floor(others.length / cross)) === 0).slice(0, cross));
    const answers = await ask(o.token, of, asQueries([...queriesOf(herd), ...strangers]));
    for (const a of answers) {
      const form: Record<string, string> = { query_id: a.query_id };
      if (a.expect === null || !herd.includes(a.expect)) form.verdict = 'unknown_ok';
      else if (a.top === a.expect) form.verdict = 'correct';
      else Object.assign(form, { verdict: 'wrong', ...(a.did ? { correct_did: a.did } : {}) });
      const r = await api(app.url, 'POST', '/api/animal/identify_verdict', { token: o.token, form });
      if (r.status !== 200) throw new Error(`label: ${r.status} ${r.text}`);
      labelled++;
    }
    const name = `owner ${i} (${herd.length} animals), as served before any pooled fit`;
    fleet.push(figures(name, ones(answers)));
    if (pairs) fleetPairs.push(figures(`${name}, two photos`, twos(answers)));
  }

  // 3. The newcomer, before the pool.
  const newcomer = await signup(app.url, 'newcomer');
  const newOf = await enrol(newcomer.token, newcomerHerd, 'farm-new');
  const newQueries = asQueries([
    ...queriesOf(newcomerHerd),
    ...strangerPhotos.slice(nOwners * num('strangers', 70), nOwners * num('strangers', 70) + num('newcomer-strangers', 40)),
  ]);
  const beforeAnswers = await ask(newcomer.token, newOf, newQueries);
  const before = figures('newcomer, before the pooled fit', ones(beforeAnswers));
  const beforePairs = pairs ? figures('newcomer, before the pooled fit, two photos', twos(beforeAnswers)) : null;

  // 4. The operator's run, then the newcomer again.
  const run = await api(app.url, 'POST', '/api/admin/calibration/pooled/run', { token: admin.token });
  if (run.status !== 200) throw new Error(`pool run: ${run.status} ${run.text}`);
  const versions = (await api(app.url, 'GET', '/api/admin/calibration/pooled', { token: admin.token })).json.versions;
  log(`pooled run: ${JSON.stringify(run.json.cells)}`);
  const afterAnswers = await ask(newcomer.token, newOf, newQueries);
  const after = figures('newcomer, with the pooled fit', ones(afterAnswers));
  const afterPairs = pairs ? figures('newcomer, with the pooled fit, two photos', twos(afterAnswers)) : null;
  // Every false match the newcomer heard, in both passes: which photo, whose it was, whom it named.
  const wrong = (answers: Answer[]) =>
    answers
      .filter((a) => a.verdict === 'match' && !(a.expect !== null && a.top === a.expect))
      .map((a) => ({ photo: a.path, truth: a.expect ?? 'never enrolled', named: a.top, probability: a.p, source: a.source }));

  const result = {
    benchmark: 'fleet',
    dataset: proto.name,
    owners: herds.map((h, i) => ({ owner: i, animals: h.length })),
    newcomer_animals: newcomerHerd.length,
    labelled_answers: labelled,
    queries_refused_by_the_quality_gate: refusedQueries,
    pooled_run: run.json,
    pooled_versions: versions.map((v: Record<string, unknown>) => ({
      ...v,
      params: v.params ? { ...(v.params as object), fusion: '(omitted)' } : null,
    })),
    fleet,
    ...(pairs ? { fleet_two_photos: fleetPairs } : {}),
    newcomer: {
      before,
      after,
      ...(pairs ? { two_photos: { before: beforePairs, after: afterPairs } } : {}),
      false_matches: { before: wrong(beforeAnswers), after: wrong(afterAnswers) },
    },
    wall_s: Math.round((performance.now() - t0) / 1000),
    machine: machineInfo('cpu'),
  };
  const file = args.get('out') ?? `benchmarks/results/fleet-${proto.name}-${new Date().toISOString().slice(0, 10)}.json`;
  saveResult(file, result);
  log(`saved ${file}`);
  log(`plots: ${writeFleetPlots(join(dirname(file), 'plots'), basename(file, '.json'), result).join(', ')}`);
} finally {
  await app.stop();
}
