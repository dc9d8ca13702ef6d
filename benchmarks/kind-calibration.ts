/**
 * The kind's shipped calibration (issue 23): a fused calibration fitted on many individuals of the
 * development sets' *galleries*, then measured on real query photos, so that an owner whose own
 * photos cannot yet vouch for a threshold (every herd of a few dozen or fewer, fit-holds-*.json)
 * gets more than the hand-set defaults (`npm run bench:kind-calibration`).
 *
 *   npx tsx benchmarks/kind-calibration.ts [--datasets holstein-dev,nyala-dev] [--split halves|none] [--write]
 *     [--fit-herds 5,5,5,5,12,12,24,0] [--eval-herds 5,5,5,12,24,0] [--per-member 6] [--per-stranger 3]
 *
 * `--split halves` (default) fits on the even places of the sorted ids and evaluates on the odd
 * ones; `none` (what ships: halves of holstein-dev's 68 cows are too few strangers to vouch) fits on
 * every individual's gallery photos, and the evaluation counts apart the never-enrolled strangers.
 * The fit reads gallery photos only, never queries.
 *
 * Fit: herds (`0`: every individual), as an owner would enrol them. Each member's gallery photos
 * are asked against the herd with every gallery photo of the same capture session hidden (the file
 * name's video start time, holstein-dev), so a frame is not matched by its neighbour, and again with
 * the member hidden; every other individual's gallery photos are asked as strangers. Every score
 * is calibrated and fused (fusion.ts). Thresholds per dataset and herd band (small herds under
 * SMALL_HERD_BELOW: strangers of small herds; large: of the others; enrolled queries of every herd)
 * are the lowest whose Clopper–Pearson bound on effective samples keeps false matches ≤ 1% among
 * strangers and among enrolled queries (threshold.ts, safeThreshold). A dataset that stands for a
 * catalogue species (SPECIES) gives that species its thresholds; `*`, the largest over every
 * dataset, serves every other species and mixed pools (kind-calibration.ts, shippedCalibration).
 *
 * Evaluation: herds again; real query photos of each member (up to 8) and of every individual
 * outside the herd (up to 6, the protocol's never-enrolled included), one photo a query, decided by
 * the hand-set defaults and the fitted thresholds side by side, each herd by its band. Identify
 * results are cached in the temp dir, so a re-run only re-scores. `--write` stores the calibration
 * in models/calibration/<kind>.json for the engine version it was fitted on
 * (workers/src/vision/kind-calibration.ts); it keeps no pairs' thresholds, so run
 * `npm run bench:kind-pairs -- --write` (kind-pairs.ts) after it.
 */
import { DEFAULT_CALIBRATION, probability, rocAuc, type CalibrationParams } from '../workers/src/vision/calibrate.js';
import { RecognitionEngine, rerank, type Candidate } from '../workers/src/vision/engine.js';
import { fitFusion } from '../workers/src/vision/fusion.js';
import { hiding } from '../workers/src/vision/open-set.js';
import { chooseThreshold, clopperPearsonUpper, safeThreshold } from '../workers/src/vision/threshold.js';
import {
  SMALL_HERD_BELOW,
  saveKindCalibration,
  type Band,
  type BandThreshold,
  type KindCalibrationFile,
} from '../workers/src/vision/kind-calibration.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';
import { enrolHerd as enrol, herdsOf, loadDataset, slim, spread, stage as cachedStage, type Dataset, type Photo } from './kind-herds.js';

const args = parseArgs(process.argv.slice(2));
const datasets = (args.get('datasets') ?? 'holstein-dev,nyala-dev').split(',');
const sizes = (k: string, d: string) => (args.get(k) ?? d).split(',').map(Number);
const fitHerds = sizes('fit-herds', '5,5,5,5,12,12,24,0');
// `halves`: fit and evaluation on disjoint individuals; `none`: the fit sees every individual's
// gallery photos (more individuals, more independent strangers) and the evaluation counts apart
// the strangers it never saw (the protocol's never-enrolled).
const split = args.get('split') ?? 'halves';
const evalHerds = sizes('eval-herds', '5,5,5,12,24,0');
const perMember = Number(args.get('per-member') ?? 6);
const perStranger = Number(args.get('per-stranger') ?? 3);
const evalPerMember = 8;
const evalPerStranger = 6;
const out = args.get('out') ?? `benchmarks/results/kind-calibration-${new Date().toISOString().slice(0, 10)}.json`;
/**
 * The catalogue species a dataset stands for (shared/data/species-catalog.json). Nyala is catalogued:
 * without its own threshold a nyala herd got the hand-set defaults, which let through 5 false matches
 * in 457 nyala-dev queries (1.1%, bench:accuracy).
 */
const SPECIES: Record<string, string> = { 'holstein-dev': 'cattle', 'nyala-dev': 'nyala' };
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const kind = 'animal' as const;
const engine = await RecognitionEngine.create();
const stage = <T>(name: string, key: unknown, compute: () => Promise<T>) => cachedStage(engine, name, key, compute);
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

const top = (ranked: readonly Candidate[]): Candidate | undefined => ranked[0];

interface Sample {
  evidence: Candidate['evidence'];
  same: boolean;
  group: string;
  openSet: boolean;
  dataset: string;
  herd: number;
}

async function fitSamples(ds: Dataset): Promise<Sample[]> {
  const out: Sample[] = [];
  const byId = new Map<string, Photo[]>();
  for (const g of ds.gallery) byId.set(g.id, [...(byId.get(g.id) ?? []), g]);
  for (const [h, herd] of herdsOf(ds.fitIds, fitHerds).entries()) {
    const members = new Set(herd);
    const { gallery } = await enrol(ds, members);
    const ask = async (p: string, hidden: Set<string>) =>
      top(
        (
          await engine.identify({
            kind,
            queries: [await ds.describe(p)],
            gallery: hiding(gallery, hidden),
            calibration: DEFAULT_CALIBRATION,
          })
        ).ranked,
      );
    const before = out.length;
    const push = (t: Candidate | undefined, id: string, openSet: boolean) => {
      if (t)
        out.push({
          evidence: t.evidence,
          same: !openSet && t.individualId === id,
          group: `${ds.name}:${id}`,
          openSet,
          dataset: ds.name,
          herd: herd.length,
        });
    };
    for (const id of herd) {
      const photos = byId.get(id) ?? [];
      for (const p of spread(photos, perMember)) {
        const hidden = new Set([p.path, ...photos.filter((x) => x.session === p.session).map((x) => x.path)]);
        if (photos.length > hidden.size) push(await ask(p.path, hidden), id, false);
        if (herd.length > 1) push(await ask(p.path, new Set(photos.map((x) => x.path))), id, true);
      }
    }
    for (const id of ds.fitIds.filter((x) => !members.has(x))) {
      for (const p of spread(byId.get(id) ?? [], perStranger)) push(await ask(p.path, new Set()), id, true);
    }
    ds.save();
    log(`${ds.name} fit herd ${h + 1} (${herd.length}): ${out.length - before} queries`);
  }
  return out;
}

interface Tally {
  queries: number;
  members: number;
  false_matches: number;
  stranger_matches: number;
  correct_match: number;
  top1: number;
  unseen: number;
  unseen_matches: number;
}
const empty = (): Tally => ({
  queries: 0,
  members: 0,
  false_matches: 0,
  stranger_matches: 0,
  correct_match: 0,
  top1: 0,
  unseen: 0,
  unseen_matches: 0,
});
const summary = (t: Tally) => ({
  ...t,
  false_match_rate: round(t.false_matches / Math.max(1, t.queries)),
  false_match_upper_95: round(clopperPearsonUpper(t.false_matches, t.queries)),
  stranger_false_rate: round(t.stranger_matches / Math.max(1, t.queries - t.members)),
  member_false_rate: round((t.false_matches - t.stranger_matches) / Math.max(1, t.members)),
  // Strangers the fit never saw at all (the protocol's never-enrolled individuals).
  unseen_stranger_false_rate: round(t.unseen_matches / Math.max(1, t.unseen)),
  unseen_stranger_upper_95: round(clopperPearsonUpper(t.unseen_matches, t.unseen)),
  correct_match_rate: round(t.correct_match / Math.max(1, t.members)),
  top1_rate: round(t.top1 / Math.max(1, t.members)),
});

function count(t: Tally, ranked: readonly Candidate[], cal: CalibrationParams, truth: string, member: boolean): void {
  const first = ranked[0];
  const named = first && first.probability >= cal.matchThreshold ? first.individualId : null;
  t.queries++;
  if (member) t.members++;
  if (named !== null && named !== truth) t.false_matches++;
  if (named !== null && !member) t.stranger_matches++;
  if (truth.startsWith('stranger:')) {
    t.unseen++;
    if (named !== null) t.unseen_matches++;
  }
  if (member && named === truth) t.correct_match++;
  if (member && first?.individualId === truth) t.top1++;
}

interface Asked {
  herd: string;
  individuals: number;
  gallery_photos: number;
  queries: { truth: string; member: boolean; ranked: Candidate[] }[];
}

/** Real query photos of each evaluation herd, identified once; any calibration re-scores them (`score`). */
async function ask(ds: Dataset): Promise<Asked[]> {
  const out: Asked[] = [];
  const queriesOf = new Map<string, string[]>();
  for (const q of ds.queries) queriesOf.set(q.truth, [...(queriesOf.get(q.truth) ?? []), q.path]);
  const evalSet = new Set(ds.evalIds);
  for (const [h, herd] of herdsOf(ds.evalIds, evalHerds).entries()) {
    const members = new Set(herd);
    const { gallery, photos } = await enrol(ds, members);
    const asked: Asked = { herd: `${herd.length}#${h + 1}`, individuals: herd.length, gallery_photos: photos, queries: [] };
    for (const [truth, list] of queriesOf) {
      // Strangers: the evaluation half's others and the never-enrolled; never the fit half's.
      const member = members.has(truth);
      if (!member && !evalSet.has(truth) && !truth.startsWith('stranger:')) continue;
      for (const p of spread(list, member ? evalPerMember : evalPerStranger)) {
        const r = await engine.identify({ kind, queries: [await ds.describe(p)], gallery, calibration: DEFAULT_CALIBRATION });
        asked.queries.push({ truth, member, ranked: slim(r.ranked) });
      }
    }
    ds.save();
    out.push(asked);
    log(`${ds.name} eval herd ${asked.herd}: ${asked.queries.length} queries`);
  }
  return out;
}

/** Herds scored in parts (each band by its own thresholds) as one result: rows in order, totals added. */
function mergeScores(parts: ReturnType<typeof score>[]) {
  const totals: Record<string, Tally> = {};
  for (const p of parts)
    for (const [k, t] of Object.entries(p.raw)) {
      const acc = (totals[k] ??= empty());
      for (const f of Object.keys(acc) as (keyof Tally)[]) acc[f] += t[f];
    }
  return { herds: parts.flatMap((p) => p.herds), total: Object.fromEntries(Object.entries(totals).map(([k, t]) => [k, summary(t)])) };
}

function score(herds: readonly Asked[], cals: Record<string, CalibrationParams>) {
  const totals: Record<string, Tally> = Object.fromEntries(Object.keys(cals).map((k) => [k, empty()]));
  const rows = herds.map((h) => {
    const tallies: Record<string, Tally> = Object.fromEntries(Object.keys(cals).map((k) => [k, empty()]));
    for (const q of h.queries) {
      for (const [name, cal] of Object.entries(cals)) {
        const ranked = rerank(q.ranked, cal);
        count(tallies[name]!, ranked, cal, q.truth, q.member);
        count(totals[name]!, ranked, cal, q.truth, q.member);
      }
    }
    return {
      herd: h.herd,
      individuals: h.individuals,
      gallery_photos: h.gallery_photos,
      ...Object.fromEntries(Object.entries(tallies).map(([k, t]) => [k, summary(t)])),
    };
  });
  return { herds: rows, total: Object.fromEntries(Object.entries(totals).map(([k, t]) => [k, summary(t)])), raw: totals };
}

const loaded: Dataset[] = [];
for (const name of datasets) loaded.push(await loadDataset(engine, name, split));
const samples: Sample[] = [];
for (const ds of loaded)
  samples.push(...(await stage(`fit-${ds.name}`, { split, fitHerds, perMember, perStranger }, () => fitSamples(ds))));
const { model, outOfFold } = fitFusion(samples);
const scored = samples.map((s, i) => ({
  p: outOfFold[i]!,
  right: s.same,
  group: s.group,
  openSet: s.openSet,
  dataset: s.dataset,
  herd: s.herd,
}));
const bandOf = (herd: number): Band => (herd >= SMALL_HERD_BELOW ? 'large' : 'small');

/**
 * A band's threshold on one dataset: strangers asked of that band's herds, and enrolled queries of
 * every herd (a small herd has few of its own, and fewer members to confuse a member with, so
 * every herd's enrolled queries are the stricter sample for it).
 */
function bandThreshold(ds: string, band: Band) {
  const mine = scored.filter((x) => x.dataset === ds && (!x.openSet || bandOf(x.herd) === band));
  const c = chooseThreshold(mine);
  const safe = safeThreshold(mine);
  return {
    queries: mine.length,
    open_set: mine.filter((x) => x.openSet).length,
    right: mine.filter((x) => x.right).length,
    auc: round(
      rocAuc(
        mine.map((x) => x.p),
        mine.map((x) => x.right),
      ),
    ),
    threshold: safe?.threshold ?? null,
    fmr_upper: round(safe?.fmrUpper ?? c.fmrUpper),
    effective_n: c.tightest.effectiveN,
    design_effect: round(c.tightest.deff, 2),
    false_matches: safe?.falseMatches ?? 0,
    correct_match_rate: round(safe?.correctMatchRate ?? 0),
    individuals: new Set(mine.map((x) => x.group)).size,
  };
}
const BANDS: Band[] = ['small', 'large'];
const perDataset = Object.fromEntries(loaded.map((ds) => [ds.name, Object.fromEntries(BANDS.map((b) => [b, bandThreshold(ds.name, b)]))]));
const asThreshold = (t: number | null, fmrUpper: number, individuals: number, queries: number): BandThreshold => ({
  matchThreshold: t ?? 1.01,
  uncertainThreshold: Math.min(0.1, (t ?? 0.2) / 2),
  ...(t === null ? {} : { vouched: { fmrUpper, individuals, queries } }),
});
// Any species: each band's threshold must keep the bound on every dataset on its own (the largest);
// a dataset that cannot vouch at all withholds matches for that band.
const anySpecies = Object.fromEntries(
  BANDS.map((b) => {
    const rows = loaded.map((ds) => perDataset[ds.name]![b]!);
    const t = rows.some((r) => r.threshold === null) ? null : Math.max(...rows.map((r) => r.threshold!));
    return [
      b,
      asThreshold(
        t,
        Math.max(...rows.map((r) => r.fmr_upper)),
        rows.reduce((a, r) => a + r.individuals, 0),
        rows.reduce((a, r) => a + r.queries, 0),
      ),
    ];
  }),
) as Record<Band, BandThreshold>;
// `*` is kept for the record only: the runtime serves species thresholds alone (kind-calibration.ts).
const thresholds: KindCalibrationFile['thresholds'] = { '*': anySpecies };
for (const ds of loaded) {
  const sp = SPECIES[ds.name];
  if (sp)
    thresholds[sp] = Object.fromEntries(
      BANDS.map((b) => {
        const r = perDataset[ds.name]![b]!;
        return [b, asThreshold(r.threshold, r.fmr_upper, r.individuals, r.queries)];
      }),
    );
}
log(`fit: ${samples.length} queries; ${JSON.stringify(perDataset)}; thresholds ${JSON.stringify(thresholds)}`);
// The params alone (no pool facts): the strictest, any species in a small herd.
const fitted: CalibrationParams = { intercept: 0, coef: [], source: 'kind:shipped', fusion: model, ...anySpecies.small };
const served = (species: string | null, band: Band): CalibrationParams => ({
  ...fitted,
  ...((species && thresholds[species]?.[band]) || anySpecies[band]),
});

const evaluation: Record<string, ReturnType<typeof mergeScores>> = {};
for (const ds of loaded) {
  const asked = await stage(`eval-${ds.name}`, { split, evalHerds }, () => ask(ds));
  const sp = SPECIES[ds.name] ?? null;
  // Each herd decided as identify would decide it: by its species (when catalogued) and size.
  const byBand = (b: Band) => asked.filter((h) => bandOf(h.individuals) === b);
  const parts = BANDS.map((b) =>
    score(byBand(b), { hand_set: DEFAULT_CALIBRATION, any_species: served(null, b), ...(sp ? { served: served(sp, b) } : {}) }),
  );
  evaluation[ds.name] = mergeScores(parts);
}
const fitReport = {
  datasets,
  split,
  fit_herds: fitHerds,
  per_member: perMember,
  per_stranger: perStranger,
  queries: samples.length,
  small_herd_below: SMALL_HERD_BELOW,
  individuals: new Set(samples.map((s) => s.group)).size,
  per_dataset: perDataset,
  thresholds,
  species: SPECIES,
  // Out-of-fold fused probability against the evidence the hand-set default sees.
  auc_fused: round(
    rocAuc(
      outOfFold,
      samples.map((s) => s.same),
    ),
  ),
  auc_hand_set: round(
    rocAuc(
      samples.map((s) => probability(s.evidence, DEFAULT_CALIBRATION)),
      samples.map((s) => s.same),
    ),
  ),
};
const result = {
  benchmark: 'kind-calibration',
  date: new Date().toISOString(),
  engine: engine.model,
  fit: fitReport,
  evaluation,
  machine: machineInfo(engine.provider),
};
saveResult(out, result);
if (args.has('write')) {
  const file: KindCalibrationFile = {
    kind,
    engine_version: engine.model.version,
    fitted_at: result.date,
    params: fitted,
    thresholds,
    fit: fitReport,
    evaluation: Object.fromEntries(Object.entries(evaluation).map(([k, v]) => [k, v.total])),
  };
  log(`wrote ${saveKindCalibration(file)}`);
}
console.log(JSON.stringify({ thresholds, evaluation: Object.fromEntries(Object.entries(evaluation).map(([k, v]) => [k, v.total])) }));
