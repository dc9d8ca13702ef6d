/**
 * Accuracy benchmark on a protocol (see shared/datasets/README.md):
 *
 *   npm run bench:accuracy -- --protocol <dir>/protocol.json [--out file.json]
 *     [--calib-samples 120] [--sample-queries N] [--limit-queries N] [--cache <dir outside the repo>]
 *     [--local akaze|xfeat] [--local-side PX] [--fit usac|graph] [--reseed N] [--crop on|off] [--shortlist N] [--per-individual N] [--variant name]
 *     [--cache-queries] [--plots <dir>] [--lnbnn] [--learn-from-gallery] [--per-side] [--species id]
 *
 * Variant flags override the kind's settings (settings.ts) for an ablation;
 * without them the engine's own per-kind choice runs. `--plots` writes SVG
 * score histograms (true vs false top-1 answers, with the match and
 * uncertain thresholds) and the ROC (benchmarks/plots.ts).
 * `shortlist_recall`: share of enrolled queries whose individual reached
 * keypoint verification (the global stage's recall). `--lnbnn` (XFeat only) also
 * ranks individuals by LNBNN voting over all gallery descriptors (lnbnn.ts) and
 * reports its top-1/top-5 and recall@K beside the global embedding's recall@K. `--per-side`: a
 * photo whose protocol entry names its flank (`side`) is compared only with that flank's gallery
 * photos. `--species`: the catalogue species the gallery is (as an owner enrols it), which picks
 * the kind's shipped threshold where the owner's own fit cannot vouch, as identify does; without
 * it, a species the shipped calibration does not know (its every-species threshold, `*`), and
 * `--species none` for the hand-set defaults alone (what identify never uses for a named species).
 *
 * Enrols every gallery image through RecognitionEngine.describe, calibrates
 * from the gallery alone (leave-one-out, see below), identifies every query
 * through RecognitionEngine.identify, and prints one JSON object as the last
 * stdout line.
 *
 * Calibration never looks at queries: a deterministic sample of gallery
 * images is identified against the rest of the gallery (positives and
 * wrong-answer negatives), and again with its whole individual hidden
 * (open-set negatives); `fitCalibration` fits on those samples.
 *
 * Definitions: top1/top5 over queries whose individual is enrolled; auc of the
 * top-1 probability, correct top-1 answers versus wrong top-1 answers plus
 * open-set queries; false_match_rate = wrong or open-set queries answered
 * `match` / all queries (at the service threshold); accept_at_far1 = correct
 * `match` answers / enrolled queries at the threshold that keeps such false
 * matches at or below 1% of all queries; uncertain_rate = `uncertain` / all
 * queries. Query time includes decoding, embedding and keypoints.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fitFusedCalibration, type QuerySample } from '../workers/src/vision/fused-fit.js';
import { fitFusion, fusedProbability } from '../workers/src/vision/fusion.js';
import { summarise } from './metrics.js';
import { orderByLearned, RecognitionEngine, type Candidate, type Descriptor } from '../workers/src/vision/engine.js';
import { settingsFor, type Kind, type KindSettings } from '../workers/src/vision/settings.js';
import { IndexedGallery, mapSource } from '../workers/src/index/gallery.js';
import { OwnerIndex, type IndexRow } from '../workers/src/index/owner-index.js';
import { machineInfo, parseArgs, peakRssMb, percentile, saveResult } from './machine.js';
import { MATCH_WITHHELD } from '../workers/src/recognition/owner-calibration.js';
import { writePlots } from './plots.js';
import { LnbnnIndex } from './lnbnn.js';
import { isXFeat, unpackXFeat } from '../workers/src/vision/xfeat.js';
import { backboneIndex, learnedIndex, sideBySide } from './learned.js';
import { verifyLocal } from '../workers/src/vision/local-features.js';
import { permuteKeypoints } from './reseed.js';

interface Protocol {
  name: string;
  kind: Kind;
  gallery: { id: string; path: string; side?: string }[];
  queries: { path: string; expect: string | null; side?: string }[];
}

const args = parseArgs(process.argv.slice(2));
// Zero-shot and learned-from-gallery passes, side by side (benchmarks/learned.ts).
if (args.has('learn-from-gallery')) {
  sideBySide(process.argv.slice(2));
  process.exit(0);
}
const protocolPath = resolve(args.get('protocol') ?? '');
if (!existsSync(protocolPath)) throw new Error('usage: --protocol <dir>/protocol.json');
const proto = JSON.parse(readFileSync(protocolPath, 'utf8')) as Protocol;
const root = dirname(protocolPath);
const kind: Kind = (proto.kind as string)?.startsWith('animal') ? 'animal' : ((proto.kind as Kind) ?? 'animal');
const cacheDir = args.get('cache');
const log = (msg: string): void => void process.stderr.write(`${msg}\n`);

const engine = await RecognitionEngine.create();
if (args.has('reseed')) {
  // USAC reseeded, to measure its own spread (reseed.ts); the query's keypoints are reordered for every identify.
  const seed = Number(args.get('reseed'));
  engine.verifier = (query, gallery, ids, s) => verifyLocal(permuteKeypoints(query, seed), gallery, ids, s);
}
/** Ablation overrides of the kind's settings. */
const overrides: Partial<KindSettings> = {};
if (args.has('local')) overrides.local = args.get('local') as KindSettings['local'];
if (args.has('crop')) overrides.subject = args.get('crop') === 'on' ? 'crop' : 'off';
if (args.has('shortlist')) overrides.shortlist = Number(args.get('shortlist'));
if (args.has('per-individual')) overrides.perIndividual = Number(args.get('per-individual'));
if (args.has('local-side')) overrides.localSide = Number(args.get('local-side'));
if (args.has('fit')) overrides.fit = args.get('fit') as KindSettings['fit'];
const settings = settingsFor(kind, overrides);
const variant =
  args.get('variant') ??
  `${settings.local}, crop ${settings.subject === 'crop' ? 'on' : 'off'}, shortlist ${settings.shortlist}×${settings.perIndividual}` +
    (args.has('learned-pass') ? (args.get('recipe') === 'backbone' ? ', fine-tuned backbone' : ', learned metric') : '') +
    (args.has('per-side') ? ', per side' : '') +
    (args.has('fit') ? `, fit ${settings.fit}` : '') +
    (args.has('local-side') ? `, local side ${settings.localSide}` : '') +
    (args.has('reseed') ? `, reseeded ${args.get('reseed')}` : '') +
    (args.has('train-per-side') ? ', trained per flank' : '');
/** Cached descriptors are only valid for the same extraction settings (shortlist sizes and the fit do not change them). */
const CACHE_SALT = JSON.stringify({
  settings: { ...settings, shortlist: 0, perIndividual: 0, tailShortlist: 0, fit: 'auto' },
  keypointsFormat: 'v2',
});

async function describeCached(path: string): Promise<{ d: Descriptor; ms: number }> {
  const bytes = readFileSync(join(root, path));
  const key = cacheDir
    ? join(cacheDir, createHash('sha256').update(bytes).update(engine.model.version).update(CACHE_SALT).digest('hex'))
    : '';
  if (cacheDir && existsSync(key + '.json')) {
    const c = JSON.parse(readFileSync(key + '.json', 'utf8'));
    return { d: { ...c, global: Float32Array.from(c.global), local: new Uint8Array(readFileSync(key + '.bin')) }, ms: c.ms };
  }
  const t = performance.now();
  const d = await engine.describe(bytes, { kind, enforceQuality: false, settings: overrides });
  const ms = performance.now() - t;
  if (cacheDir) {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(key + '.bin', d.local);
    writeFileSync(key + '.json', JSON.stringify({ ...d, global: Array.from(d.global), local: undefined, preview: undefined, ms }));
  }
  return { d, ms };
}

const sideOf = new Map(proto.gallery.map((g) => [g.path, g.side]));
// Enrol.
const enrolMs: number[] = [];
const local = new Map<string, Uint8Array>();
let index = new OwnerIndex(join('/tmp', `markless-bench-${process.pid}`), engine.model.version, engine.dim);
const rows: IndexRow[] = [];
let unusable = 0;
for (const [i, g] of proto.gallery.entries()) {
  const { d, ms } = await describeCached(g.path);
  enrolMs.push(ms);
  if (d.quality.reasons.length) unusable++;
  local.set(g.path, d.local);
  rows.push({ id: g.path, individualId: g.id, kind, vector: d.global });
  if (i % 200 === 0) log(`enrol ${i}/${proto.gallery.length}`);
}
// --learned-pass: every search goes through a metric trained on the gallery alone.
// With --recipe backbone, through a backbone fine-tuned on the gallery crops instead.
const backbone = args.has('learned-pass') && args.get('recipe') === 'backbone';
const learning = !args.has('learned-pass')
  ? null
  : backbone
    ? await backboneIndex(
        rows,
        (id) => new Uint8Array(readFileSync(join(root, id))),
        `${index.dir}-backbone`,
        engine.model.version,
        log,
        cacheDir,
        // --train-per-side: each flank trains as a class of its own (a nyala's two flanks differ).
        args.has('train-per-side') ? (r) => `${r.individualId}${sideOf.get(r.id) ? `:${sideOf.get(r.id)}` : ''}` : undefined,
      )
    : await learnedIndex(rows, `${index.dir}-learned`, engine.model.version, log, cacheDir);
if (learning) index = learning.index;
else index.rebuild(rows);
const gallery = new IndexedGallery(index, { kind }, mapSource(local));
// --per-side: a photo that says which flank it shows is compared only with gallery photos of
// that flank (or of no stated side). An experiment: the routes take no side, because the figures
// did not support one (benchmarks/results/backbone-variants.md, "Flanks").
const perSide = args.has('per-side');
const bySide = new Map<string, IndexedGallery>();
function sideGallery(side: string | undefined): IndexedGallery {
  if (!perSide || !side) return gallery;
  if (!bySide.has(side))
    bySide.set(side, gallery.narrowed({ exclude: proto.gallery.filter((g) => g.side && g.side !== side).map((g) => g.path) }));
  return bySide.get(side)!;
}

// Calibrate from the gallery only (leave-one-out plus hidden-individual open set).
// 200 photos give about 400 queries (photo hidden; individual hidden): enough for a 1% bound (299).
const nCalib = Number(args.get('calib-samples') ?? 200);
const hashed = (list: Protocol['gallery']) =>
  list
    .map((g) => ({ g, h: createHash('sha256').update(g.path).digest('hex') }))
    .sort((a, b) => (a.h < b.h ? -1 : 1))
    .map((x) => x.g);
// A fine-tuned backbone calibrates on the gallery photos held out of its training only, its
// strangers' photos first (half the picks at most): as the service picks (owner-calibration.ts),
// since only they can be asked hidden.
const eligible = proto.gallery.filter((g) => !(learning && 'calibrateOn' in learning) || learning.calibrateOn.has(g.path));
const strangerPicks =
  learning && 'strangers' in learning ? hashed(eligible.filter((g) => learning.strangers.has(g.id))).slice(0, Math.ceil(nCalib / 2)) : [];
const calibPicks = [
  ...strangerPicks,
  ...hashed(eligible.filter((g) => !strangerPicks.includes(g))).slice(0, nCalib - strangerPicks.length),
];
// As the service fits an owner (workers/src/recognition/owner-calibration.ts): each picked photo
// is identified with itself hidden, then with its whole individual hidden (the open set), and
// the fused calibration's match threshold must hold the 1% false-match bound (Clopper–Pearson).
const photosOf = new Map<string, string[]>();
for (const g of proto.gallery) photosOf.set(g.id, [...(photosOf.get(g.id) ?? []), g.path]);
const samples: QuerySample[] = [];
for (const [i, g] of calibPicks.entries()) {
  const { d } = await describeCached(g.path);
  const others = photosOf.get(g.id)!.filter((p) => p !== g.path);
  if (others.length) {
    const top = (
      await engine.identify({ kind, queries: [d], gallery: sideGallery(g.side).narrowed({ exclude: [g.path] }), settings: overrides })
    ).ranked[0];
    if (top) samples.push({ evidence: top.evidence, same: top.individualId === g.id, group: g.id });
  }
  // A fine-tuned backbone knows every individual it trained on: only its strangers stand for the open set.
  const askOpen = !(learning && 'strangers' in learning) || learning.strangers.has(g.id);
  const open = askOpen
    ? (
        await engine.identify({
          kind,
          queries: [d],
          gallery: sideGallery(g.side).narrowed({ exclude: [g.path, ...others] }),
          settings: overrides,
        })
      ).ranked[0]
    : undefined;
  if (open) samples.push({ evidence: open.evidence, same: false, group: g.id, openSet: true });
  if (i % 20 === 0) log(`calibrate ${i}/${calibPicks.length}`);
}
const fused = fitFusedCalibration(samples, { source: 'fused: gallery held-out photos + hidden individuals' });
// Too little data to vouch for 1%: the kind's defaults serve, as the service says in its answer;
// behind a fine-tuned backbone they vouch for nothing, so matches are withheld (calibrationFor).
// --species: what identify knows of an owner's pool (its one species and size), which picks the
// kind's shipped threshold for that species (kind-calibration.ts); without it, a species the file
// does not know (`*`); `none`: no facts, the hand-set defaults.
const speciesArg = args.get('species')?.toLowerCase();
const pool = speciesArg === 'none' ? {} : { species: speciesArg ?? null, individuals: photosOf.size };
const kindDefault = engine.calibrationFor(kind, pool);
if (fused.params) engine.setCalibration(kind, fused.params);
else engine.setCalibration(kind, backbone ? { ...kindDefault, matchThreshold: MATCH_WITHHELD } : kindDefault);
const fit = {
  ...fused,
  params: undefined,
  source: fused.params
    ? 'owner (fused, fitted on the gallery)'
    : `kind_default (${kindDefault.source})${backbone ? ', matches withheld behind the backbone' : ''}: ${fused.reason}`,
};
log(`calibration: ${JSON.stringify(fit)}`);

// Identify.
// --sample-queries N keeps every k-th query (a deterministic stride over the
// protocol's order, so every identity and the open set stay represented).
const sampleN = Number(args.get('sample-queries') ?? 0);
const stride = sampleN > 0 ? Math.max(1, Math.ceil(proto.queries.length / sampleN)) : 1;
const limit = Number(args.get('limit-queries') ?? proto.queries.length);
const queries = proto.queries.filter((_, i) => i % stride === 0).slice(0, limit);
const lnbnn =
  args.has('lnbnn') && settings.local === 'xfeat'
    ? new LnbnnIndex(
        proto.gallery
          .filter((g) => isXFeat(local.get(g.path)!))
          .map((g) => ({ individualId: g.id, features: unpackXFeat(local.get(g.path)!) })),
      )
    : null;
if (lnbnn) log(`lnbnn index: ${lnbnn.size} descriptors`);
const RECALL_K = [1, 5, 15, 24, 48];
const shortlistRanks: { global: number; lnbnn: number }[] = [];
/** 1-based rank of `id` among individuals in a best-first list of hits; Infinity when absent. */
const rankOf = (ids: readonly string[], id: string): number => {
  const uniq = [...new Set(ids)];
  const at = uniq.indexOf(id);
  return at < 0 ? Infinity : at + 1;
};
const queryMs: number[] = [];
const globalTop: boolean[] = [];
/**
 * Backbone passes: where the right individual lands among the verified candidates ordered by
 * calibrated probability, by the backbone's cosine, or by the sum of both ranks (the engine
 * serves the kind's `learnedOrder`, settings.ts; `top1` above is what it served).
 */
const orderings: { probability: number; learned: number; fused: number }[] = [];
function orderingsOf(ranked: readonly Candidate[], perQuery: readonly { individualId: string; learned?: number }[][], expect: string) {
  const byP = [...ranked].sort((a, b) => b.probability - a.probability);
  const rank = (l: readonly Candidate[]) => l.findIndex((c) => c.individualId === expect);
  return {
    probability: rank(byP),
    learned: rank(orderByLearned(byP, perQuery, 'learned')),
    fused: rank(orderByLearned(byP, perQuery, 'both')),
  };
}
const rate = (ranks: readonly number[], k: number) => ranks.filter((r) => r >= 0 && r < k).length / Math.max(1, ranks.length);
const cacheQueries = args.has('cache-queries');
const outcomes: { expect: string | null; ranked: Candidate[]; verdict: string }[] = [];
for (const [i, q] of queries.entries()) {
  const t = performance.now();
  // Queries are described afresh (never from the cache) so their timing is real, unless an
  // ablation asks for --cache-queries (its latency figures are then not query latency).
  const d = cacheQueries
    ? (await describeCached(q.path)).d
    : await engine.describe(readFileSync(join(root, q.path)), { kind, enforceQuality: false, settings: overrides });
  if (learning && 'embedQuery' in learning) await learning.embedQuery(new Uint8Array(readFileSync(join(root, q.path))), d.global);
  const res = await engine.identify({ kind, queries: [d], gallery: sideGallery(q.side), settings: overrides });
  queryMs.push(performance.now() - t);
  if (lnbnn && q.expect !== null) {
    const globalIds = index.search(d.global, 400, { kind }).map((h) => h.individualId);
    shortlistRanks.push({
      global: rankOf(globalIds, q.expect),
      lnbnn: rankOf(
        lnbnn.rank(unpackXFeat(d.local)).map((c) => c.individualId),
        q.expect,
      ),
    });
  }
  outcomes.push({ expect: q.expect, ranked: res.ranked, verdict: res.verdict });
  if (learning && 'embedQuery' in learning && q.expect !== null)
    orderings.push(
      orderingsOf(
        res.ranked,
        [learning.index.learnedHits(d.global, 400, { kind }).map((h) => ({ individualId: h.individualId, learned: h.similarity }))],
        q.expect,
      ),
    );
  // The global stage alone (base, learned metric or backbone space): its nearest individual.
  if (q.expect !== null) globalTop.push(index.search(d.global, 1, { kind })[0]?.individualId === q.expect);
  if (i % 50 === 0) log(`query ${i}/${queries.length}`);
}

const m = summarise(outcomes);
// With too few gallery photos to vouch for 1%, the service serves the kind's defaults; how the
// fused probability would separate these queries is still worth knowing (never served).
let fusedUnvouched: Record<string, unknown> | null = null;
if (!fused.params && samples.some((x) => x.same) && samples.some((x) => !x.same)) {
  const model = fitFusion(samples).model;
  const rescored = outcomes.map((o) => {
    const ranked = o.ranked
      .map((c) => ({ ...c, probability: fusedProbability(model, c.evidence) }))
      .sort((a, b) => b.probability - a.probability);
    return { ...o, ranked, verdict: 'uncertain' };
  });
  const f = summarise(rescored);
  fusedUnvouched = {
    note: 'fused probability fitted on the gallery without enough queries to vouch for 1%; not what the service serves',
    top1: f.top1,
    auc: f.auc,
    accept_at_far1: f.accept_at_far1,
  };
}
const cal = engine.calibrationFor(kind);
const result = {
  dataset: proto.name,
  variant,
  settings: {
    local: settings.local,
    subject: settings.subject,
    shortlist: settings.shortlist,
    perIndividual: settings.perIndividual,
    tailShortlist: settings.tailShortlist,
  },
  ...(lnbnn
    ? {
        shortlist_variants: Object.fromEntries(
          (['global', 'lnbnn'] as const).map((v) => [
            v,
            Object.fromEntries(
              RECALL_K.map((k) => [`recall_at_${k}`, shortlistRanks.filter((r) => r[v] <= k).length / Math.max(1, shortlistRanks.length)]),
            ),
          ]),
        ),
      }
    : {}),
  shortlist_recall: m.shortlist_recall,
  n_gallery: proto.gallery.length,
  n_queries: queries.length,
  n_queries_in_protocol: proto.queries.length,
  query_sampling: stride > 1 ? `every ${stride}th query of the protocol (--sample-queries ${sampleN})` : 'all',
  n_queries_enrolled: m.n_queries_enrolled,
  n_queries_open_set: m.n_queries_open_set,
  top1: m.top1,
  top5: m.top5,
  global_stage_top1: globalTop.filter(Boolean).length / Math.max(1, globalTop.length),
  ...(orderings.length
    ? {
        ordered_by_probability: {
          top1: rate(
            orderings.map((o) => o.probability),
            1,
          ),
          top5: rate(
            orderings.map((o) => o.probability),
            5,
          ),
        },
        ordered_by_backbone: {
          top1: rate(
            orderings.map((o) => o.learned),
            1,
          ),
          top5: rate(
            orderings.map((o) => o.learned),
            5,
          ),
        },
        ordered_by_both_ranks: {
          top1: rate(
            orderings.map((o) => o.fused),
            1,
          ),
          top5: rate(
            orderings.map((o) => o.fused),
            5,
          ),
        },
      }
    : {}),
  auc: m.auc,
  accept_at_far1: m.accept_at_far1,
  false_match_rate: m.false_match_rate,
  match_rate: m.match_rate,
  correct_match_rate: m.correct_match_rate,
  uncertain_rate: m.uncertain_rate,
  ...(fusedUnvouched ? { fused_unvouched: fusedUnvouched } : {}),
  no_match_rate: m.no_match_rate,
  verdict_shares: { match: m.match_rate, uncertain: m.uncertain_rate, no_match: m.no_match_rate },
  thresholds: { match: cal.matchThreshold, uncertain: cal.uncertainThreshold, source: fit.source },
  ms_query_p50: percentile(queryMs, 50),
  ms_query_p95: percentile(queryMs, 95),
  ms_enrol_image_p50: percentile(enrolMs, 50),
  peak_rss_mb: peakRssMb(),
  gallery_images_failing_quality: unusable,
  calibration: { ...fit, samples_from: 'gallery only (leave-one-out + hidden individual)' },
  model: engine.model,
  ...(learning ? { learned_metric: learning.report } : {}),
  descriptor_cache: cacheDir
    ? cacheQueries
      ? 'gallery and queries (--cache-queries): ms_query_* exclude describing the query'
      : 'gallery only (enrol timings are from their first computation); queries always described afresh'
    : 'none',
  machine: machineInfo(engine.provider),
  date: new Date().toISOString(),
  /** Per query: top-1 probability, whether it was right, verdict (for plots and re-analysis). */
  per_query: m.per_query,
};
const plots = args.get('plots');
if (plots) {
  const files = writePlots(
    plots,
    `${proto.name}-${variant.replace(/[^A-Za-z0-9]+/g, '-')}`,
    result.per_query,
    cal,
    `${proto.name}: ${variant}`,
  );
  (result as Record<string, unknown>).plots = files;
}
const out = args.get('out');
saveResult(out, result);
rmSync(index.dir, { recursive: true, force: true });
console.log(JSON.stringify(result));
