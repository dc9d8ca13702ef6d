/**
 * Does the owner's calibration keep its promise on real photos, whatever the herd's size?
 * (`npm run bench:fit-holds`)
 *
 *   npx tsx benchmarks/fit-holds.ts [--protocol ../shared/datasets/holstein-dev/protocol.json]
 *     [--herds 5x4,12x2,24x1] [--per-member 8] [--per-stranger 6] [--out …] [--dump samples.json]
 *
 * For each herd (`5x4`: four disjoint herds of 5 individuals, consecutive by id), the gallery is
 * every gallery photo of its individuals and the owner's calibration is fitted on it as the
 * service fits it (benchmarks/owner-fit.ts). Then the protocol's query photos are asked one at a
 * time: up to `per-member` of each individual of the herd, and up to `per-stranger` of every
 * individual outside it (never enrolled). A false match is a `match` naming anyone but the
 * individual shown. Reported per herd: the fit's threshold and its promised bound, the false
 * matches it let through on real queries and their rate, correct `match` on the herd's own
 * queries, and the same under the kind's defaults (what the answer falls back to when the owner's
 * fit vouches for nothing).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RecognitionEngine, type Descriptor } from '../workers/src/vision/engine.js';
import { clopperPearsonUpper } from '../workers/src/vision/threshold.js';
import { probability } from '../workers/src/vision/calibrate.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';
import { fitOwnerAsServed, memoryGallery, type GalleryEntry } from './owner-fit.js';
import { descriptorCache } from './descriptor-cache.js';

const args = parseArgs(process.argv.slice(2));
const protoPath = path.resolve(args.get('protocol') ?? '../shared/datasets/holstein-dev/protocol.json');
const root = path.dirname(protoPath);
const dataset = path.basename(root);
const herdSpec = (args.get('herds') ?? '5x4,12x2,24x1').split(',').map((s) => s.split('x').map(Number) as [number, number]);
const perMember = Number(args.get('per-member') ?? 8);
const perStranger = Number(args.get('per-stranger') ?? 6);
const out = args.get('out') ?? `benchmarks/results/fit-holds-${dataset}-${new Date().toISOString().slice(0, 10)}.json`;
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const proto = JSON.parse(await readFile(protoPath, 'utf8')) as {
  kind?: string;
  gallery: { id: string; path: string }[];
  queries: { path: string; expect: string | null }[];
};
const kind = (proto.kind ?? 'animal') as 'animal';
const engine = await RecognitionEngine.create();
const cache = descriptorCache(engine, dataset);
const describe = (p: string): Promise<Descriptor> =>
  cache.get(p, async () => engine.describe(new Uint8Array(await readFile(path.join(root, p))), { kind, enforceQuality: false }));

const ids = [...new Set(proto.gallery.map((g) => g.id))].sort();
const individualOf = (q: { path: string; expect: string | null }) => q.expect ?? `stranger:${path.basename(path.dirname(q.path))}`;
const queriesOf = new Map<string, string[]>();
for (const q of [...proto.queries].sort((a, b) => (a.path < b.path ? -1 : 1)))
  queriesOf.set(individualOf(q), [...(queriesOf.get(individualOf(q)) ?? []), q.path]);

interface Tally {
  queries: number;
  members: number;
  false_matches: number;
  stranger_matches: number;
  correct_match: number;
  top1: number;
}
const empty = (): Tally => ({ queries: 0, members: 0, false_matches: 0, stranger_matches: 0, correct_match: 0, top1: 0 });
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
const summary = (t: Tally) => ({
  ...t,
  false_match_rate: round(t.false_matches / Math.max(1, t.queries)),
  false_match_upper_95: round(clopperPearsonUpper(t.false_matches, t.queries)),
  // Per kind of query, as the fit bounds it: among never-enrolled queries, and among the herd's own.
  stranger_false_rate: round(t.stranger_matches / Math.max(1, t.queries - t.members)),
  member_false_rate: round((t.false_matches - t.stranger_matches) / Math.max(1, t.members)),
  correct_match_rate: round(t.correct_match / Math.max(1, t.members)),
  top1_rate: round(t.top1 / Math.max(1, t.members)),
});

const herds: Record<string, unknown>[] = [];
const dump: Record<string, unknown>[] = [];
for (const [size, count] of herdSpec) {
  for (let h = 0; h < count && (h + 1) * size <= ids.length; h++) {
    const members = new Set(ids.slice(h * size, (h + 1) * size));
    const entries: GalleryEntry[] = [];
    for (const g of proto.gallery.filter((x) => members.has(x.id)))
      entries.push({ id: g.path, individualId: g.id, d: await describe(g.path) });
    const gallery = memoryGallery(entries);
    const fit = await fitOwnerAsServed(engine, kind, entries, gallery);
    const asked: { path: string; truth: string; member: boolean }[] = [];
    for (const [id, list] of queriesOf)
      for (const p of list.slice(0, members.has(id) ? perMember : perStranger)) asked.push({ path: p, truth: id, member: members.has(id) });
    const owner = empty();
    const kindDefault = empty();
    const real: { p_owner: number | null; p_default: number; top: string | null; truth: string; member: boolean }[] = [];
    for (const q of asked) {
      const d = await describe(q.path);
      const count = (t: Tally, r: Awaited<ReturnType<RecognitionEngine['identify']>>) => {
        t.queries++;
        const named = r.verdict === 'match' ? r.candidates[0]!.individualId : null;
        if (q.member) t.members++;
        if (named !== null && named !== q.truth) t.false_matches++;
        if (named !== null && !q.member) t.stranger_matches++;
        if (q.member && named === q.truth) t.correct_match++;
        if (q.member && r.ranked[0]?.individualId === q.truth) t.top1++;
      };
      const byDefault = await engine.identify({ kind, queries: [d], gallery });
      count(kindDefault, byDefault);
      const byOwner = fit.params ? await engine.identify({ kind, queries: [d], gallery, calibration: fit.params }) : null;
      if (byOwner) count(owner, byOwner);
      real.push({
        p_owner: byOwner?.ranked[0]?.probability ?? null,
        p_default: byDefault.ranked[0]?.probability ?? 0,
        top: byDefault.ranked[0]?.individualId ?? null,
        truth: q.truth,
        member: q.member,
      });
    }
    cache.save();
    const row = {
      herd: `${size}#${h + 1}`,
      individuals: size,
      gallery_photos: entries.length,
      query_photos: asked.length,
      fit: {
        served: fit.params !== null,
        reason: fit.reason,
        n: fit.n,
        open_set: fit.open_set,
        effective_n: fit.effective_n ?? null,
        auc: round(fit.auc),
        threshold: fit.threshold,
        promised_bound: round(fit.fmr_upper),
      },
      owner: fit.params ? summary(owner) : null,
      kind_default: summary(kindDefault),
    };
    herds.push(row);
    log(
      `${row.herd}: fit ${fit.params ? `threshold ${fit.threshold?.toFixed(3)} bound ${(fit.fmr_upper * 100).toFixed(2)}% on ${fit.n}` : `none (${fit.reason})`}; ` +
        (row.owner
          ? `owner: ${row.owner.false_matches}/${row.owner.queries} false (${(row.owner.false_match_rate * 100).toFixed(2)}%), correct match ${(row.owner.correct_match_rate * 100).toFixed(1)}%; `
          : '') +
        `kind default: ${row.kind_default.false_matches}/${row.kind_default.queries} false, correct match ${(row.kind_default.correct_match_rate * 100).toFixed(1)}%`,
    );
    if (args.has('dump'))
      dump.push({
        herd: row.herd,
        samples: fit.samples?.map((s) => ({ ...s, p: fit.params ? probability(s.evidence, fit.params) : null })),
        real,
      });
  }
}
const result = {
  benchmark: 'fit-holds',
  date: new Date().toISOString(),
  dataset,
  per_member: perMember,
  per_stranger: perStranger,
  machine: machineInfo(engine.provider),
  herds,
};
saveResult(out, result);
if (args.has('dump')) saveResult(args.get('dump'), dump);
console.log(
  JSON.stringify({
    dataset,
    herds: herds.map((h) => ({
      herd: h.herd,
      fit: h.fit,
      owner_false: (h.owner as Tally | null)?.false_matches ?? null,
      default_false: (h.kind_default as Tally).false_matches,
    })),
  }),
);
