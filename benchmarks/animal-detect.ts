/**
 * Detector accuracy behind /api/animal/detect, on the animal photos we have:
 *
 *   npx tsx benchmarks/animal-detect.ts --protocol <dir>/protocol.json --species cattle [--sample 300] [--out file.json]
 *
 * Every development set holds ONE species (holstein-dev: cattle; nyala-dev: nyala), so this
 * measures how often the detector names the right class for that species (and finds an animal
 * at all), not how well it separates species from each other. On top of the raw detector it
 * replays the spec's rule 3 (shared/src/domain/animal-species.ts, the same code the worker runs)
 * for a few two-species farms holding the photo's true species, and counts: proceeded with the
 * right species, asked to confirm with the right species in the list, or proceeded with a wrong one.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { decideSpecies, DETECT_CONFIDENT, type FarmSpecies } from '../shared/src/domain/animal-species.js';
import { animalDetector } from '../workers/src/vision/animal-detector.js';
import { loadDetector } from '../workers/src/vision/detector.js';
import { machineInfo, parseArgs, percentile, saveResult } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const protocolPath = resolve(args.get('protocol') ?? '');
const species = args.get('species') ?? '';
const proto = JSON.parse(readFileSync(protocolPath, 'utf8')) as { name: string; gallery: { path: string }[]; queries: { path: string }[] };
const catalog = JSON.parse(readFileSync('shared/data/species-catalog.json', 'utf8')) as {
  species: { id: string; kind: string; detector_class?: string | null }[];
  confusable_groups: { species: string[] }[];
};
const animals = catalog.species.filter((s) => s.kind === 'animal');
const me = animals.find((s) => s.id === species);
if (!me) throw new Error('usage: --species <catalogue animal id>');
const groups = catalog.confusable_groups.map((g) => g.species);
const farmOf = (ids: string[]): FarmSpecies[] =>
  ids.map((id) => ({ id, detector_class: animals.find((s) => s.id === id)?.detector_class ?? null }));
// Two-species farms holding the true species: unconfusable partners, a confusable one, and one the detector cannot see.
const partners = ['horse', 'sheep', 'cattle', 'zebu', 'pig', 'nyala'].filter((p) => p !== species);

const all = [...new Set([...proto.gallery, ...proto.queries].map((x) => x.path))];
const n = Number(args.get('sample') ?? 300);
const stride = Math.max(1, Math.floor(all.length / n));
const paths = all.filter((_, i) => i % stride === 0).slice(0, n);

const detector = await animalDetector();
const labels = new Map<string, number>();
const ms: number[] = [];
let found = 0;
let right = 0;
let rightConfident = 0;
const farms = new Map<
  string,
  { proceeded_right: number; confirm_with_right_in_list: number; proceeded_wrong: number; confirm_without_right: number }
>();
for (const p of partners)
  farms.set(`${species}+${p}`, { proceeded_right: 0, confirm_with_right_in_list: 0, proceeded_wrong: 0, confirm_without_right: 0 });
for (const path of paths) {
  const t = performance.now();
  const dets = await detector.detect(new Uint8Array(readFileSync(join(dirname(protocolPath), path))));
  ms.push(performance.now() - t);
  const top = dets[0];
  labels.set(top?.label ?? '(none)', (labels.get(top?.label ?? '(none)') ?? 0) + 1);
  if (top && top.score >= 0.25) found++;
  if (top && top.label === me.detector_class) {
    right++;
    if (top.score >= DETECT_CONFIDENT) rightConfident++;
  }
  for (const p of partners) {
    const d = decideSpecies({ farm: farmOf([species, p]), groups, catalogue: animals.map((s) => s.id), detections: dets });
    const tally = farms.get(`${species}+${p}`)!;
    if (!d.need_confirm) d.species === species ? tally.proceeded_right++ : tally.proceeded_wrong++;
    else d.candidates.some((c) => c.species === species) ? tally.confirm_with_right_in_list++ : tally.confirm_without_right++;
  }
}
const rate = (x: number) => Math.round((x / paths.length) * 1e4) / 1e4;
const result = {
  dataset: proto.name,
  species,
  note: `one species only (${species}): measures naming the right detector class, not telling species apart`,
  detector: detector.model,
  detector_class: me.detector_class ?? null,
  photos: paths.length,
  photos_in_set: all.length,
  sampling: stride > 1 ? `every ${stride}th photo of gallery+queries` : 'all',
  animal_found_rate: rate(found),
  top_label_right_rate: me.detector_class ? rate(right) : null,
  top_label_right_confident_rate: me.detector_class ? rate(rightConfident) : null,
  top_labels: Object.fromEntries([...labels.entries()].sort((a, b) => b[1] - a[1])),
  rule3_two_species_farms: Object.fromEntries(
    [...farms.entries()].map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([a, b]) => [a, rate(b)]))]),
  ),
  ms_per_photo_p50: Math.round(percentile(ms, 50)),
  ms_per_photo_p95: Math.round(percentile(ms, 95)),
  machine: { ...machineInfo((await loadDetector()).provider), ...(args.has('note') ? { note: args.get('note') } : {}) },
  date: new Date().toISOString(),
};
const out = args.get('out');
saveResult(out, result);
console.log(JSON.stringify(result));
