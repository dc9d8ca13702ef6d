/**
 * The engine pool describing fruit photos, no HTTP, no database (`npm run bench:pool`):
 *
 *   npx tsx benchmarks/pool-describe.ts [--photos 256] [--rounds 3] [--out benchmarks/results/pool-describe-<date>.json]
 *
 * `describeMany` over generated 160 px peel photos (test/support/fruit-batch.ts), the same set each
 * round: the first round pays each model's first run per input shape (on CUDA, cuDNN picks its
 * algorithms then), the later ones are warm. Prints photos/s and the seconds per stage summed over
 * the photos, and saves them with the machine and the provider the pool picked. Pool size, batch
 * size and linger come from ENGINE_POOL_SIZE, ENGINE_BATCH_SIZE, ENGINE_LINGER_MS;
 * MARKLESS_DISABLE_CUDA=1 times the CPU provider.
 */
import { createEnginePool } from '../workers/src/engine-pool/index.js';
import { loadEmbedder } from '../workers/src/vision/embed.js';
import { smallFruitPhotos, surface } from '../test/support/fruit-batch.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const n = Number(args.get('photos') ?? 256);
const rounds = Number(args.get('rounds') ?? 3);
const out = args.get('out') ?? `benchmarks/results/pool-describe-${new Date().toISOString().slice(0, 10)}.json`;

// The pool's threads pick their provider as this process does (same library check).
const provider = (await loadEmbedder()).provider;
const peels = await Promise.all(Array.from({ length: 8 }, (_, i) => surface(7000 + i)));
const photos = await smallFruitPhotos(n, peels);
const stages: Record<string, number> = {};
const pool = createEnginePool({
  observer: {
    batch: (_size, t) => {
      for (const [k, v] of Object.entries(t)) stages[k] = (stages[k] ?? 0) + (v ?? 0);
    },
  },
});
const results: Record<string, unknown>[] = [];
for (let r = 0; r < rounds; r++) {
  for (const k of Object.keys(stages)) delete stages[k];
  const before = pool.stats().batches;
  const t0 = performance.now();
  const got = await pool.describeMany(photos.map((p) => ({ bytes: new Uint8Array(p.bytes), opts: { kind: 'fruit' as const } })));
  const ms = performance.now() - t0;
  const row = {
    round: r === 0 ? 'cold' : `warm ${r}`,
    photos_per_s: Math.round((n * 10_000) / ms) / 10,
    failed: got.filter((x) => x instanceof Error).length,
    batches: pool.stats().batches - before,
    stage_seconds_summed: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, Math.round(v * 100) / 100])),
  };
  results.push(row);
  console.log(JSON.stringify(row));
}
await pool.close();
saveResult(out, {
  benchmark: 'pool-describe',
  date: new Date().toISOString(),
  photos: n,
  photo_px: 160,
  kind: 'fruit',
  pool: pool.settings,
  machine: machineInfo(provider),
  results,
});
