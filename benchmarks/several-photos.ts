/**
 * Are several-photo answers as safe as one-photo answers? (`npm run bench:several`)
 *
 *   npx tsx benchmarks/several-photos.ts [--protocol ../shared/datasets/holstein-dev/protocol.json]
 *     [--individuals 24] [--per-stranger 6] [--groups 2,3,4] [--out benchmarks/results/several-photos-<dataset>-<date>.json]
 *
 * The owner's calibration is vouched for one photo: its threshold keeps the Clopper–Pearson bound
 * of the false-match rate ≤ 1% on single held-out photos. `POST /api/identify` with several photos
 * and a survey track's crops are one query whose scores each keep their best over the photos, so a
 * wrong individual gets several chances too. This measures what that does, on real photos:
 * - the gallery is every gallery photo of the first `individuals` individuals, and the owner's
 *   calibration is fitted on it as the service fits it (recognition/owner-calibration.ts);
 * - queries are the protocol's query photos: those of enrolled individuals (closed set), and
 *   those of every other individual, up to `per-stranger` each (never enrolled);
 * - each photo is asked alone, and consecutive photos of one individual are asked as groups of
 *   2, 3 and 4, the served way (`engine.identify` with several queries);
 * - groups are judged four ways: as served (the threshold fitted for that many photos on groups
 *   of the gallery's held-out photos, `calibration.several`; beyond the fitted sizes the first two
 *   photos as a pair; with nothing vouched the every-photo rule: decide.ts), with
 *   the pairs' threshold whatever the size (as served before sizes 3 and 4 had their own), with
 *   the one-photo threshold (before any several-photo threshold existed), and by the rule "every
 *   photo alone says `match` to the same individual", whose false-match rate cannot exceed a
 *   single photo's.
 * Reports per way of asking: queries, false matches (a `match` to a stranger or to the wrong
 * individual), their rate and 95% upper bound, correct `match` and top-1 on the closed set.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RecognitionEngine, type Descriptor } from '../workers/src/vision/engine.js';
import { clopperPearsonUpper } from '../workers/src/vision/threshold.js';
import { severalScopeFor, severalScopes } from '../workers/src/vision/calibrate.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';
import { fitOwnerAsServed, memoryGallery, type GalleryEntry } from './owner-fit.js';

const args = parseArgs(process.argv.slice(2));
const protoPath = path.resolve(args.get('protocol') ?? '../shared/datasets/holstein-dev/protocol.json');
const root = path.dirname(protoPath);
const nInd = Number(args.get('individuals') ?? 24);
const perStranger = Number(args.get('per-stranger') ?? 6);
const groupSizes = (args.get('groups') ?? '2,3,4').split(',').map(Number);
const proto = JSON.parse(await readFile(protoPath, 'utf8')) as {
  kind?: string;
  gallery: { id: string; path: string }[];
  queries: { path: string; expect: string | null }[];
};
const dataset = path.basename(root);
const out = args.get('out') ?? `benchmarks/results/several-photos-${dataset}-${new Date().toISOString().slice(0, 10)}.json`;
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const engine = await RecognitionEngine.create();
const describe = async (p: string): Promise<Descriptor> =>
  engine.describe(new Uint8Array(await readFile(path.join(root, p))), { kind: 'animal', enforceQuality: false });

const enrolled = [...new Set(proto.gallery.map((g) => g.id))].sort().slice(0, nInd);
const enrolledSet = new Set(enrolled);
const entries: GalleryEntry[] = [];
for (const g of proto.gallery.filter((x) => enrolledSet.has(x.id)))
  entries.push({ id: g.path, individualId: g.id, d: await describe(g.path) });
log(`gallery: ${entries.length} photos of ${enrolled.length} individuals`);
const gallery = memoryGallery(entries);

// The owner's calibration and its several-photo threshold, as the service fits them.
const fit = await fitOwnerAsServed(engine, 'animal', entries, gallery);
// Too little independent data to vouch for 1%: the kind's defaults decide, as the service says in its answer.
if (!fit.params) log(`the owner fit vouches for nothing here (${fit.reason}); the kind's defaults decide`);
const calibration = fit.params ?? engine.calibrationFor('animal');
const several = severalScopes(calibration);
const pairs = severalScopeFor(calibration, 2);
log(
  `owner calibration: ${fit.n} queries, threshold ${fit.threshold?.toFixed(3)}, bound ${(fit.fmr_upper * 100).toFixed(2)}%; several photos: ` +
    several
      .map(
        (s) =>
          `${s.groupSize} photos: ${s.queries} queries, threshold ${s.matchThreshold.toFixed(3)}, bound ${(s.fmrUpper * 100).toFixed(2)}%`,
      )
      .join('; '),
);

// Query photos: the closed set, and up to `perStranger` of each individual never enrolled (in path order).
const individualOf = (q: { path: string; expect: string | null }) => q.expect ?? `stranger:${path.basename(path.dirname(q.path))}`;
const byInd = new Map<string, string[]>();
for (const q of [...proto.queries].sort((a, b) => (a.path < b.path ? -1 : 1))) {
  const id = individualOf(q);
  const list = byInd.get(id) ?? [];
  if (enrolledSet.has(id) || list.length < perStranger) list.push(q.path);
  byInd.set(id, list);
}
const described = new Map<string, Descriptor>();
for (const list of byInd.values()) for (const p of list) described.set(p, await describe(p));
log(
  `queries: ${described.size} photos of ${byInd.size} individuals (${[...byInd.keys()].filter((id) => enrolledSet.has(id)).length} enrolled)`,
);

interface Answer {
  verdict: string;
  top: string | null;
  rankedTop: string | null;
}
/** As served; with the pairs' threshold whatever the size; with the one-photo threshold: the fused top at each. */
async function ask(paths: readonly string[]): Promise<{ served: Answer; pairThreshold: Answer; oneThreshold: Answer }> {
  const r = await engine.identify({ kind: 'animal', queries: paths.map((p) => described.get(p)!), gallery, calibration });
  const rankedTop = r.ranked[0]?.individualId ?? null;
  const at = (threshold: number | undefined): Answer => {
    const top = threshold !== undefined && threshold <= 1 && r.ranked[0] && r.ranked[0].probability >= threshold ? rankedTop : null;
    return { verdict: top ? 'match' : 'uncertain', top, rankedTop };
  };
  return {
    served: { verdict: r.verdict, top: r.verdict === 'match' ? r.candidates[0]!.individualId : null, rankedTop },
    pairThreshold: at(pairs?.matchThreshold),
    oneThreshold: at(calibration.matchThreshold),
  };
}

interface Tally {
  queries: number;
  closed: number;
  false_matches: number;
  correct_match: number;
  top1: number;
  strangers: number;
  stranger_matches: number;
}
const empty = (): Tally => ({ queries: 0, closed: 0, false_matches: 0, correct_match: 0, top1: 0, strangers: 0, stranger_matches: 0 });
function count(t: Tally, truth: string, a: Answer): void {
  t.queries++;
  const known = enrolledSet.has(truth);
  if (known) t.closed++;
  else t.strangers++;
  if (a.top !== null && a.top !== truth) t.false_matches++;
  if (a.top !== null && !known) t.stranger_matches++;
  if (known && a.top === truth) t.correct_match++;
  if (known && a.rankedTop === truth) t.top1++;
}

const single = new Map<string, Answer>();
const tallies: Record<string, Tally> = { single: empty() };
for (const [id, list] of byInd)
  for (const p of list) {
    const a = (await ask([p])).served;
    single.set(p, a);
    count(tallies.single!, id, a);
  }
for (const k of groupSizes) {
  const served = (tallies[`group_${k}_served`] = empty());
  const pairThreshold = (tallies[`group_${k}_pair_threshold`] = empty());
  const oneThreshold = (tallies[`group_${k}_one_photo_threshold`] = empty());
  const all = (tallies[`group_${k}_every_photo`] = empty());
  for (const [id, list] of byInd) {
    for (let i = 0; i + k <= list.length; i += k) {
      const g = list.slice(i, i + k);
      const a = await ask(g);
      count(served, id, a.served);
      count(pairThreshold, id, a.pairThreshold);
      count(oneThreshold, id, a.oneThreshold);
      const tops = g.map((p) => single.get(p)!.top);
      const agreed = tops.every((x) => x !== null && x === tops[0]) ? tops[0]! : null;
      // The rule's ranking is the first photo's; top-1 is reported for the served way only.
      count(all, id, { verdict: agreed ? 'match' : 'uncertain', top: agreed, rankedTop: single.get(g[0]!)!.rankedTop });
    }
  }
  log(`groups of ${k}: done`);
}

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
const rows = Object.fromEntries(
  Object.entries(tallies).map(([name, t]) => [
    name,
    {
      ...t,
      false_match_rate: round(t.false_matches / Math.max(1, t.queries)),
      false_match_upper_95: round(clopperPearsonUpper(t.false_matches, t.queries)),
      correct_match_rate: round(t.correct_match / Math.max(1, t.closed)),
      top1_rate: round(t.top1 / Math.max(1, t.closed)),
    },
  ]),
);
for (const [name, r] of Object.entries(rows)) {
  log(
    `${name.padEnd(22)} ${String(r.queries).padStart(4)} queries (${r.strangers} never enrolled): false matches ${r.false_matches} ` +
      `(${(r.false_match_rate * 100).toFixed(2)}%, bound ${(r.false_match_upper_95 * 100).toFixed(2)}%), correct match ${(r.correct_match_rate * 100).toFixed(1)}%, top-1 ${(r.top1_rate * 100).toFixed(1)}%`,
  );
}
const result = {
  benchmark: 'several-photos',
  date: new Date().toISOString(),
  dataset,
  individuals: enrolled.length,
  gallery_photos: entries.length,
  calibration: {
    source: fit.params ? 'owner' : 'kind_default',
    reason: fit.reason,
    n: fit.n,
    effective_n: fit.effective_n,
    threshold: fit.threshold,
    fmr_upper: fit.fmr_upper,
    auc: fit.auc,
    several,
  },
  query_photos: described.size,
  per_stranger: perStranger,
  machine: machineInfo(engine.provider),
  results: rows,
};
saveResult(out, result);
console.log(
  JSON.stringify({
    dataset,
    results: Object.fromEntries(
      Object.entries(rows).map(([k, r]) => [
        k,
        { queries: r.queries, false_matches: r.false_matches, correct_match_rate: r.correct_match_rate },
      ]),
    ),
  }),
);
