/**
 * The pairs' threshold of the kind's shipped calibration (issues 23 and 25): the `match` threshold
 * for a query of two photos of one animal (and, through its first two, of more: decide.ts), decided
 * by the kind's calibration where the owner's own photos cannot vouch (`npm run bench:kind-pairs`).
 * Without it such a query, a survey track's crops included, needs every photo alone to say `match`.
 *
 *   npx tsx benchmarks/kind-pairs.ts [--dataset holstein-dev] [--write]
 *     [--fit-herds 5,5,5,5,12,12,24,0] [--eval-herds 5,5,5,12,24,0] [--per-member 6] [--per-stranger 3]
 *
 * It keeps the shipped fused model (models/calibration/animal.json, from bench:kind-calibration) and
 * chooses, per herd band, the lowest threshold whose Clopper–Pearson bound on effective samples keeps
 * false matches ≤ 1% among strangers and among enrolled pairs (threshold.ts, safeThreshold), as the
 * one-photo thresholds were chosen.
 *
 * Fit, on gallery photos only: herds as an owner would enrol them. A member's pair is two photos
 * from two different capture sessions, asked with both sessions hidden, and again with the member
 * hidden; every other individual's pairs are asked as strangers. Two sessions, not two frames of
 * one: a stranger's two independent photos give a wrong animal two real chances, the harder case
 * (and a survey track's frames, nearer each other, are then held to more than they need).
 *
 * Evaluation, on real query photos never read by any fit: each herd's members (up to 4 pairs each)
 * and every individual outside it, never-enrolled included (up to 2 pairs), decided as served
 * (decideSeveral) with the pairs' threshold and, side by side, without it (every photo alone must
 * say `match`), and the first photo alone. `--write` stores the thresholds in the calibration file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type CalibrationParams, type SeveralScope } from '../workers/src/vision/calibrate.js';
import { agreedTop, decide, decideSeveral, type Verdict } from '../workers/src/vision/decide.js';
import { RecognitionEngine, rerank, type Candidate } from '../workers/src/vision/engine.js';
import { hiding } from '../workers/src/vision/open-set.js';
import { clopperPearsonUpper, safeThreshold, chooseThreshold } from '../workers/src/vision/threshold.js';
import { BUNDLED_MODELS_DIR } from '../workers/src/vision/registry.js';
import { SMALL_HERD_BELOW, saveKindCalibration, type Band, type KindCalibrationFile } from '../workers/src/vision/kind-calibration.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';
import { enrolHerd, groupBy, herdsOf, loadDataset, slim, spread, stage, type Dataset, type Photo } from './kind-herds.js';

const args = parseArgs(process.argv.slice(2));
const name = args.get('dataset') ?? 'holstein-dev';
const sizes = (k: string, d: string) => (args.get(k) ?? d).split(',').map(Number);
const fitHerds = sizes('fit-herds', '5,5,5,5,12,12,24,0');
const evalHerds = sizes('eval-herds', '5,5,5,12,24,0');
const perMember = Number(args.get('per-member') ?? 6);
const perStranger = Number(args.get('per-stranger') ?? 3);
const evalPerMember = 4;
const evalPerStranger = 2;
const out = args.get('out') ?? `benchmarks/results/kind-pairs-${name}-${new Date().toISOString().slice(0, 10)}.json`;
/** The catalogue species a dataset stands for, as in kind-calibration.ts. */
const SPECIES: Record<string, string> = { 'holstein-dev': 'cattle' };
const species = SPECIES[name];
if (!species) throw new Error(`${name} stands for no catalogue species: its pairs' threshold would serve nobody.`);
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const kind = 'animal' as const;
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
const engine = await RecognitionEngine.create();
const file = JSON.parse(readFileSync(path.join(BUNDLED_MODELS_DIR, 'calibration', `${kind}.json`), 'utf8')) as KindCalibrationFile;
if (file.engine_version !== engine.model.version)
  throw new Error(
    `The shipped calibration was fitted on ${file.engine_version}, not ${engine.model.version}: run bench:kind-calibration first.`,
  );
const bandOf = (herd: number): Band => (herd >= SMALL_HERD_BELOW ? 'large' : 'small');
const BANDS: Band[] = ['small', 'large'];
/** The one-photo calibration a herd of this band is served, before any pairs' threshold. */
const single = (band: Band): CalibrationParams => {
  const { several: _old, ...own } = file.thresholds[species]![band]!;
  return { ...file.params, ...own };
};

/** Two photos of one individual from two capture sessions, `n` pairs spread over its sessions. */
function pairsOf<T extends { path: string; session: string }>(photos: readonly T[], n: number): [T, T][] {
  const sessions = [...groupBy(photos, (p) => p.session).values()];
  if (sessions.length < 2) return [];
  const picked = spread(sessions, 2 * n);
  const half = Math.floor(picked.length / 2);
  const mid = (s: readonly T[]) => s[Math.floor(s.length / 2)]!;
  return Array.from({ length: Math.min(n, half) }, (_, i) => [mid(picked[i]!), mid(picked[i + half]!)]);
}

/**
 * What a pair's threshold is held against: the fused evidence at its best over the two photos
 * (`best`), or the photos' agreement on one individual (`agree`, decide.ts). Both are fitted and
 * scored; `--combine agree` writes the agreement.
 */
type Combine = 'best' | 'agree';
const COMBINES: Combine[] = ['best', 'agree'];

interface PairSample {
  truth: string;
  openSet: boolean;
  herd: number;
  ranked: Candidate[];
  alone: Candidate[][];
}

async function fitSamples(ds: Dataset): Promise<PairSample[]> {
  const samples: PairSample[] = [];
  const byId = groupBy(ds.gallery, (g) => g.id);
  for (const [h, herd] of herdsOf(ds.fitIds, fitHerds).entries()) {
    const members = new Set(herd);
    const { gallery } = await enrolHerd(ds, members);
    const one = async (photos: readonly Photo[], hidden: Set<string>) =>
      slim(
        (
          await engine.identify({
            kind,
            queries: await Promise.all(photos.map((p) => ds.describe(p.path))),
            gallery: hiding(gallery, hidden),
            calibration: single(bandOf(herd.length)),
          })
        ).ranked,
      );
    // The pair as one query, and each photo alone (what the agreement of the photos is scored on).
    const ask = async (pair: readonly Photo[], hidden: Set<string>) => ({
      ranked: await one(pair, hidden),
      alone: await Promise.all(pair.map((p) => one([p], hidden))),
    });
    const before = samples.length;
    for (const id of herd) {
      const photos = byId.get(id) ?? [];
      for (const pair of pairsOf(photos, perMember)) {
        const sessions = new Set(pair.map((p) => p.session));
        const hidden = new Set(photos.filter((x) => sessions.has(x.session)).map((x) => x.path));
        if (photos.length > hidden.size) samples.push({ truth: id, openSet: false, herd: herd.length, ...(await ask(pair, hidden)) });
        if (herd.length > 1)
          samples.push({ truth: id, openSet: true, herd: herd.length, ...(await ask(pair, new Set(photos.map((x) => x.path)))) });
      }
    }
    for (const id of ds.fitIds.filter((x) => !members.has(x))) {
      for (const pair of pairsOf(byId.get(id) ?? [], perStranger))
        samples.push({ truth: id, openSet: true, herd: herd.length, ...(await ask(pair, new Set())) });
    }
    ds.save();
    log(`${ds.name} pairs fit herd ${h + 1} (${herd.length}): ${samples.length - before} pairs`);
  }
  return samples;
}

/** A band's pairs' threshold: strangers asked of that band's herds, enrolled pairs of every herd (as for one photo). */
function bandScope(samples: readonly PairSample[], band: Band, combine: Combine) {
  const cal = single(band);
  const mine = samples
    .filter((s) => !s.openSet || bandOf(s.herd) === band)
    .flatMap((s) => {
      const t =
        combine === 'agree'
          ? agreedTop(s.alone.map((r) => rerank(r, cal)))
          : (([c]) => c && { individualId: c.individualId, score: c.probability })(rerank(s.ranked, cal));
      return t ? [{ p: t.score, right: !s.openSet && t.individualId === s.truth, group: `${name}:${s.truth}`, openSet: s.openSet }] : [];
    });
  const safe = safeThreshold(mine);
  const c = chooseThreshold(mine);
  const scope: SeveralScope = {
    matchThreshold: safe?.threshold ?? 1.01,
    groupSize: 2,
    queries: mine.length,
    falseMatches: safe?.falseMatches ?? 0,
    fmrUpper: round(safe?.fmrUpper ?? c.fmrUpper),
    ...(combine === 'agree' ? { combine } : {}),
  };
  return {
    scope,
    report: {
      combine,
      queries: mine.length,
      open_set: mine.filter((x) => x.openSet).length,
      right: mine.filter((x) => x.right).length,
      threshold: safe?.threshold ?? null,
      one_photo_threshold: cal.matchThreshold,
      fmr_upper: scope.fmrUpper,
      effective_n: c.tightest.effectiveN,
      design_effect: round(c.tightest.deff, 2),
      false_matches: scope.falseMatches,
      correct_match_rate: round(safe?.correctMatchRate ?? 0),
      individuals: new Set(mine.map((x) => x.group)).size,
    },
  };
}

interface Asked {
  herd: string;
  individuals: number;
  queries: { truth: string; member: boolean; pair: Candidate[]; alone: Candidate[][] }[];
}

/** Real query photos of each evaluation herd asked as pairs, and each photo alone; any calibration re-scores them. */
async function ask(ds: Dataset): Promise<Asked[]> {
  const asked: Asked[] = [];
  const queriesOf = groupBy(ds.queries, (q) => q.truth);
  const evalSet = new Set(ds.evalIds);
  for (const [h, herd] of herdsOf(ds.evalIds, evalHerds).entries()) {
    const members = new Set(herd);
    const { gallery } = await enrolHerd(ds, members);
    const row: Asked = { herd: `${herd.length}#${h + 1}`, individuals: herd.length, queries: [] };
    const id = async (paths: readonly string[]) =>
      slim(
        (
          await engine.identify({
            kind,
            queries: await Promise.all(paths.map((p) => ds.describe(p))),
            gallery,
            calibration: single(bandOf(herd.length)),
          })
        ).ranked,
      );
    for (const [truth, list] of queriesOf) {
      const member = members.has(truth);
      if (!member && !evalSet.has(truth) && !truth.startsWith('stranger:')) continue;
      for (const pair of pairsOf(list, member ? evalPerMember : evalPerStranger)) {
        const paths = pair.map((p) => p.path);
        row.queries.push({ truth, member, pair: await id(paths), alone: await Promise.all(paths.map((p) => id([p]))) });
      }
    }
    ds.save();
    asked.push(row);
    log(`${ds.name} pairs eval herd ${row.herd}: ${row.queries.length} pairs`);
  }
  return asked;
}

interface Tally {
  queries: number;
  members: number;
  false_matches: number;
  correct_match: number;
  uncertain: number;
  unseen: number;
  unseen_matches: number;
}
const empty = (): Tally => ({ queries: 0, members: 0, false_matches: 0, correct_match: 0, uncertain: 0, unseen: 0, unseen_matches: 0 });
const summary = (t: Tally) => ({
  ...t,
  false_match_rate: round(t.false_matches / Math.max(1, t.queries)),
  false_match_upper_95: round(clopperPearsonUpper(t.false_matches, t.queries)),
  correct_match_rate: round(t.correct_match / Math.max(1, t.members)),
  unseen_upper_95: round(clopperPearsonUpper(t.unseen_matches, t.unseen)),
});
function count(t: Tally, v: { verdict: Verdict; shown: readonly Candidate[] }, truth: string, member: boolean): void {
  const named = v.verdict === 'match' ? v.shown[0]!.individualId : null;
  t.queries++;
  if (member) t.members++;
  if (named !== null && named !== truth) t.false_matches++;
  if (member && named === truth) t.correct_match++;
  if (v.verdict === 'uncertain') t.uncertain++;
  if (truth.startsWith('stranger:')) {
    t.unseen++;
    if (named !== null) t.unseen_matches++;
  }
}

function score(herds: readonly Asked[], scopes: Record<Band, SeveralScope>, each: Record<Combine, Record<Band, SeveralScope>>) {
  const ways = ['first_photo_alone', 'pair_every_photo_rule', 'pair_threshold', 'pair_best_threshold', 'pair_agree_threshold'] as const;
  const totals = Object.fromEntries(ways.map((w) => [w, empty()])) as Record<(typeof ways)[number], Tally>;
  const rows = herds.map((h) => {
    const band = bandOf(h.individuals);
    const without = single(band);
    const withPairs: CalibrationParams = { ...without, several: [scopes[band]] };
    const mine = Object.fromEntries(ways.map((w) => [w, empty()])) as typeof totals;
    for (const q of h.queries) {
      const alone = q.alone.map((r) => rerank(r, without));
      const served = (c: CalibrationParams) =>
        decideSeveral(
          rerank(q.pair, c),
          q.alone.map((r) => rerank(r, c)),
          c,
        );
      const verdicts = {
        first_photo_alone: decide(alone[0]!, without),
        pair_every_photo_rule: decideSeveral(rerank(q.pair, without), alone, without),
        pair_threshold: served(withPairs),
        pair_best_threshold: served({ ...without, several: [each.best[band]] }),
        pair_agree_threshold: served({ ...without, several: [each.agree[band]] }),
      };
      for (const w of ways) {
        count(mine[w], verdicts[w], q.truth, q.member);
        count(totals[w], verdicts[w], q.truth, q.member);
      }
    }
    return { herd: h.herd, individuals: h.individuals, band, ...Object.fromEntries(ways.map((w) => [w, summary(mine[w])])) };
  });
  return { herds: rows, total: Object.fromEntries(ways.map((w) => [w, summary(totals[w])])) };
}

const ds = await loadDataset(engine, name, 'none');
const samples = await stage(engine, `pairs-fit-${name}`, { fitHerds, perMember, perStranger, alone: true }, () => fitSamples(ds));
type Fitted = Record<Band, ReturnType<typeof bandScope>>;
const byCombine = Object.fromEntries(
  COMBINES.map((m) => [m, Object.fromEntries(BANDS.map((b) => [b, bandScope(samples, b, m)])) as Fitted]),
) as Record<Combine, Fitted>;
// The best photo unless `--combine agree`: the fit's pairs come from two sessions, and on
// near-identical frames (a survey track) the agreement is about one photo's score, below the
// one-photo threshold; written to the calibration it matched a stranger's track
// (benchmarks/results/README.md, "Two photos must agree"). Both are reported either way.
const chosen: Combine = args.get('combine') === 'agree' ? 'agree' : 'best';
const fitted = Object.fromEntries(BANDS.map((b) => [b, byCombine[chosen][b]])) as Fitted;
log(`pairs fit: ${samples.length} pairs; ${JSON.stringify(byCombine)}`);
const scopes = Object.fromEntries(BANDS.map((b) => [b, fitted[b].scope])) as Record<Band, SeveralScope>;
const each = Object.fromEntries(COMBINES.map((m) => [m, Object.fromEntries(BANDS.map((b) => [b, byCombine[m][b].scope]))])) as Record<
  Combine,
  Record<Band, SeveralScope>
>;
const asked = await stage(engine, `pairs-eval-${name}`, { evalHerds, evalPerMember, evalPerStranger }, () => ask(ds));
const evaluation = score(asked, scopes, each);
const fitReport = {
  dataset: name,
  species,
  fit_herds: fitHerds,
  per_member: perMember,
  per_stranger: perStranger,
  pairs: samples.length,
  small_herd_below: SMALL_HERD_BELOW,
  bands: Object.fromEntries(BANDS.map((b) => [b, fitted[b].report])),
  each: Object.fromEntries(COMBINES.map((m) => [m, Object.fromEntries(BANDS.map((b) => [b, byCombine[m][b].report]))])),
};
const result = {
  benchmark: 'kind-pairs',
  date: new Date().toISOString(),
  engine: engine.model,
  calibration_fitted_at: file.fitted_at,
  fit: fitReport,
  evaluation,
  machine: machineInfo(engine.provider),
};
saveResult(out, result);
if (args.has('write')) {
  for (const b of BANDS) file.thresholds[species]![b] = { ...file.thresholds[species]![b]!, several: [scopes[b]] };
  file.fit = { ...file.fit, pairs: fitReport };
  file.evaluation = { ...file.evaluation, [`${name}:pairs`]: evaluation.total };
  log(`wrote ${saveKindCalibration(file)}`);
}
console.log(JSON.stringify({ scopes, evaluation: evaluation.total }));
