/**
 * Fits the enrolment's duplicate warning (workers/src/handlers/enrol-duplicate.ts) on synthetic
 * individuals, the only data we may fit on (the development sets are for evaluation). A herd of H
 * generated animals is enrolled from three views each; then another three views of one of them
 * are enrolled again (the warning should fire) and three views of an animal not in the herd,
 * half the time a sibling of one that is (it should not). For every attempt it keeps what the
 * rule reads: the top candidate's probability, guarded inliers and lead over the runner-up, and
 * whether the top is the animal itself. Then it scores each (floor, lead) pair.
 *
 *   npm run synth -- --kind animal --surfaces holstein,hereford,nyala,zebra --siblings 0.4 \
 *     --identities 48 --views 6 --size 480 --seed 39 --out /tmp/dup48
 *   npx tsx benchmarks/duplicate-rule.ts --data /tmp/dup48 --out benchmarks/results/duplicate-rule-<date>.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RecognitionEngine, type Descriptor } from '../workers/src/vision/engine.js';
import { IndexedGallery, mapSource } from '../workers/src/index/gallery.js';
import { OwnerIndex } from '../workers/src/index/owner-index.js';
import { machineInfo } from './machine.js';
import { COMPARABLE_RUNNER_UP, VERIFIED_INLIERS_ALONE } from '../workers/src/handlers/enrol-duplicate.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    out: { type: 'string' },
    herds: { type: 'string', default: '1,2,4,8,16' },
    trials: { type: 'string', default: '12' },
  },
});
if (!values.data) throw new Error('--data DIR (a synth animal set with at least 6 views) is required');
const dir = values.data;
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
  identities: { label: string; family: string; surface: string; views: { file: string }[] }[];
  seed: number;
};
const animals = manifest.identities.filter((i) => i.views.length >= 6);
const engine = await RecognitionEngine.create();
const calibration = engine.calibrationFor('animal');

const described = new Map<string, Descriptor[]>();
for (const a of animals) {
  const ds: Descriptor[] = [];
  for (const v of a.views) ds.push(await engine.describe(readFileSync(join(dir, v.file)), { kind: 'animal', enforceQuality: false }));
  described.set(a.label, ds);
}

// Deterministic choices: a small LCG seeded by the set's seed and the trial.
const rng = (seed: number) => () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 4_294_967_296;

interface Attempt {
  herd: number;
  same: boolean;
  sibling: boolean;
  top_is_self: boolean;
  verdict: string;
  probability: number;
  local: number;
  local_margin: number;
  /** The best guarded inliers among the other candidates. */
  runner_up_local: number;
  ranked: number;
}
const attempts: Attempt[] = [];
let n = 0;
for (const herd of values.herds!.split(',').map(Number)) {
  for (let trial = 0; trial < Number(values.trials); trial++) {
    const r = rng(manifest.seed * 7919 + herd * 101 + trial);
    const order = [...animals];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const members = order.slice(0, herd);
    const inHerd = new Set(members.map((m) => m.label));
    const index = new OwnerIndex(join(os.tmpdir(), `markless-dup-${process.pid}-${n++}`), engine.model.version, engine.dim);
    const local = new Map<string, Uint8Array>();
    const rows = [];
    for (const m of members)
      for (const [i, d] of described.get(m.label)!.slice(0, 3).entries()) {
        const id = `${m.label}#${i}`;
        local.set(id, d.local);
        rows.push({ id, individualId: m.label, kind: 'animal' as const, vector: d.global });
      }
    index.rebuild(rows);
    const gallery = new IndexedGallery(index, { kind: 'animal' }, mapSource(local));
    // A sibling of a herd member when there is one outside the herd, else any other animal.
    const families = new Set(members.map((m) => m.family));
    const outside = order.filter((a) => !inHerd.has(a.label));
    const sibling = trial % 2 === 0 ? outside.find((a) => families.has(a.family)) : undefined;
    const stranger = sibling ?? outside[0]!;
    const tries = [
      { label: members[trial % herd]!.label, views: described.get(members[trial % herd]!.label)!.slice(3, 6), same: true },
      { label: stranger.label, views: described.get(stranger.label)!.slice(0, 3), same: false },
    ];
    for (const t of tries) {
      const out = await engine.identify({ kind: 'animal', queries: t.views, gallery, calibration });
      const top = out.ranked[0];
      attempts.push({
        herd,
        same: t.same,
        sibling: !t.same && !!sibling,
        top_is_self: top?.individualId === t.label,
        verdict: out.verdict,
        probability: top?.probability ?? 0,
        local: top?.evidence.local ?? 0,
        local_margin: top?.evidence.localMargin ?? 0,
        runner_up_local: Math.max(0, ...out.ranked.slice(1).map((c) => c.evidence.local)),
        ranked: out.ranked.length,
      });
    }
  }
}

/** The rule as enrol-duplicate.ts states it, with the floor and the lead to choose. */
const warns = (a: Attempt, floor: number, lead: number) =>
  (a.verdict === 'match' && a.ranked >= 3) ||
  (a.probability >= calibration.uncertainThreshold &&
    (a.runner_up_local < COMPARABLE_RUNNER_UP ? a.local >= VERIFIED_INLIERS_ALONE : a.local >= floor && a.local_margin >= lead));
const grid = [];
for (const floor of [0, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150])
  for (const lead of [Math.log(1.5), Math.log(2), Math.log(3)]) {
    const right = attempts.filter((a) => a.same && a.top_is_self && warns(a, floor, lead)).length;
    // A false warning: a stranger's photos, or an animal's own photos pointing at another.
    const wrong = attempts.filter((a) => (!a.same || !a.top_is_self) && warns(a, floor, lead)).length;
    const strangers = attempts.filter((a) => !a.same).length;
    grid.push({
      floor,
      lead: Number(lead.toFixed(3)),
      warned_same: right,
      same: attempts.filter((a) => a.same).length,
      false_warnings: wrong,
      strangers,
    });
  }
console.table(grid);
const result = {
  generated: new Date().toISOString(),
  machine: machineInfo('cpu'),
  data: { dir, seed: manifest.seed, animals: animals.length },
  calibration: { uncertain: calibration.uncertainThreshold },
  grid,
  attempts,
};
if (values.out) writeFileSync(values.out, JSON.stringify(result, null, 1) + '\n');
