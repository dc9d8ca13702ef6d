/**
 * Scale benchmark: identify latency and memory as one owner's gallery grows.
 *
 *   npm run bench:scale -- --n 1000,10000,100000 [--queries 40] [--kind tree|animal] [--out benchmarks/results/scale.json]
 *
 * `--kind animal` describes generated field scenes (testing/animal-scene.ts) with the
 * animal pipeline (detector crop + XFeat), so the XFeat verification cost is what is timed.
 *
 * Realistic generated images: seeded synthetic bark textures are described by
 * the real engine (global embedding + AKAZE keypoints). To reach N enrolled
 * images, those descriptors are reused: each extra image gets a base
 * texture's keypoints and its global embedding plus small seeded noise (so the
 * HNSW graph is not full of exact duplicates). Query latency covers
 * describe + HNSW shortlist + keypoint verification + calibration; the
 * describe and the bare HNSW search (k = 400) are also timed on their own.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { IndexedGallery } from '../workers/src/index/gallery.js';
import { OwnerIndex, type IndexRow } from '../workers/src/index/owner-index.js';
import { RecognitionEngine } from '../workers/src/vision/engine.js';
import { barkView, mulberry32 } from '../workers/src/vision/testing/synthetic.js';
import { animalScene } from '../workers/src/vision/testing/animal-scene.js';
import { machineInfo, parseArgs, peakRssMb, percentile } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const sizes = (args.get('n') ?? '1000,10000,100000').split(',').map(Number);
const nQueries = Number(args.get('queries') ?? 40);
const nBase = Number(args.get('base') ?? 100);
const log = (m: string): void => void process.stderr.write(`${m}\n`);

const engine = await RecognitionEngine.create();
const kind = (args.get('kind') ?? 'tree') as 'tree' | 'animal';
const enrolImage = (s: number): Promise<Buffer> =>
  kind === 'animal' ? animalScene({ coat: 20_000 + s }) : barkView(20_000 + s, { left: 0, top: 0, size: 320 });
const queryImage = (s: number): Promise<Buffer> =>
  kind === 'animal'
    ? animalScene({ coat: 20_000 + s, shot: 5, dx: 25 })
    : barkView(20_000 + s, { left: 120, top: 100, size: 300, rotate: 20, brightness: 1.1 });
const base: { global: Float32Array; local: Uint8Array }[] = [];
for (let s = 0; s < nBase; s++) {
  const d = await engine.describe(await enrolImage(s), { kind, enforceQuality: false });
  base.push({ global: d.global, local: d.local });
  if (s % 20 === 0) log(`base ${s}/${nBase}`);
}
const queries = [];
for (let i = 0; i < nQueries; i++) {
  queries.push(await queryImage(i % nBase));
}

function jittered(i: number): Float32Array {
  const rnd = mulberry32(i + 1);
  const v = Float32Array.from(base[i % nBase]!.global, (x) => x + (i < nBase ? 0 : (rnd() - 0.5) * 0.02));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const results = [];
const root = join(tmpdir(), `markless-scale-${process.pid}`);
for (const n of sizes) {
  const rows: IndexRow[] = Array.from({ length: n }, (_, i) => ({
    id: `img-${i}`,
    individualId: `ind-${Math.floor(i / 5)}`,
    kind,
    vector: jittered(i),
  }));
  const t0 = performance.now();
  const index = new OwnerIndex(join(root, String(n)), engine.model.version, engine.dim);
  index.rebuild(rows);
  const buildS = (performance.now() - t0) / 1000;
  const localOf = (id: string): Uint8Array => base[Number(id.slice(4)) % nBase]!.local;
  const gallery = new IndexedGallery(index, { kind }, (ids) => new Map(ids.map((id) => [id, localOf(id)])));
  const ms: number[] = [];
  // Warm-up (JIT, WASM, index pages) so the first N is not charged for it.
  for (const q of queries.slice(0, 3))
    await engine.identify({ kind, queries: [await engine.describe(q, { kind, enforceQuality: false })], gallery });
  const describeMs: number[] = [];
  const searchMs: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const d = await engine.describe(q, { kind, enforceQuality: false });
    const t1 = performance.now();
    await engine.identify({ kind, queries: [d], gallery });
    ms.push(performance.now() - t);
    describeMs.push(t1 - t);
    const t2 = performance.now();
    index.search(d.global, 400, { kind });
    searchMs.push(performance.now() - t2);
  }
  const r = {
    n,
    build_s: Math.round(buildS * 10) / 10,
    ms_query_p50: percentile(ms, 50),
    ms_query_p95: percentile(ms, 95),
    ms_describe_p50: percentile(describeMs, 50),
    ms_hnsw_search_p50: percentile(searchMs, 50),
    ms_hnsw_search_p95: percentile(searchMs, 95),
    peak_rss_mb: peakRssMb(),
  };
  log(JSON.stringify(r));
  results.push(r);
  rmSync(join(root, String(n)), { recursive: true, force: true });
}
const first = results[0];
const last = results[results.length - 1];
const summary = {
  benchmark: 'scale',
  kind,
  queries: nQueries,
  base_textures: nBase,
  results,
  p95_growth: first && last ? last.ms_query_p95 / first.ms_query_p95 : null,
  model: engine.model,
  machine: machineInfo(engine.provider),
  date: new Date().toISOString(),
};
const out = args.get('out');
if (out) {
  mkdirSync(dirname(resolve(out)), { recursive: true });
  writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');
}
console.log(JSON.stringify(summary));
