/**
 * Batch benchmark: fruit batches (POST /api/fruit/batch) end to end, through the real API, queue,
 * database and blob store, in embedded mode and in distributed mode with 1 and 2 worker processes.
 *
 *   npm run bench:batch -- [--photos 200] [--surfaces 8] [--configs embedded,distributed-1,distributed-2]
 *                          [--env ENGINE_BATCH_SIZE=64,WORKER_CONCURRENCY=16] [--note text] [--out benchmarks/results/batch-<date>.json]
 *
 * Photos are generated (seeded peel textures, 160 px views; see test/support/images.ts), and a
 * pool of `surfaces` fruit is enrolled first, so every photo is described and ranked against a
 * real pool. Throughput is photos / (time from sending the batch to its last row), upload
 * included. Per-photo latency is the worker's own time on each photo (describe + rank + write),
 * read from `fruit_batch_rows.work_ms`. Distributed workers run with WORKER_CONCURRENCY=1 each,
 * so 1 → 2 workers doubles the parallelism offered; embedded runs jobs in the API process with
 * its default WORKER_CONCURRENCY (2); `--env` adds settings to every process of every stack (a GPU
 * worker's batch size, say), and the provider recorded is the one `/api/health` reports. The machine's load average is recorded with each run:
 * figures taken on a shared machine are only comparable with that load in mind.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { batchForm, smallFruitPhotos, surface } from '../test/support/fruit-batch.js';
import { api, signup } from '../test/support/app.js';
import { otherView, photoForm } from '../test/support/images.js';
import { until } from '../test/support/process.js';
import { distributed, embedded } from './stacks.js';
import { fruitBatchRepo } from '../shared/src/repos/fruit-batch.repo.js';
import { machineInfo, parseArgs, percentile } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const nPhotos = Number(args.get('photos') ?? 200);
const nSurfaces = Number(args.get('surfaces') ?? 8);
const configs = (args.get('configs') ?? 'embedded,distributed-1,distributed-2').split(',');
const extraEnv = Object.fromEntries(
  (args.get('env') ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
let provider = 'unknown';
const out = args.get('out') ?? `benchmarks/results/batch-${new Date().toISOString().slice(0, 10)}.json`;
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function runOne(name: string): Promise<Record<string, unknown>> {
  const stack = name === 'embedded' ? await embedded(extraEnv) : await distributed(Number(name.split('-')[1]), extraEnv);
  try {
    provider = (await api(stack.url, 'GET', '/api/health')).json.recognition?.provider ?? provider;
    const owner = await signup(stack.url, 'bench');
    const peels = await Promise.all(Array.from({ length: nSurfaces }, (_, i) => surface(7000 + i)));
    const ids: string[] = [];
    for (const peel of peels) {
      const r = await api(stack.url, 'POST', '/api/fruit/enroll', {
        token: owner.token,
        body: photoForm([await otherView(peel, 1), await otherView(peel, 2)]),
      });
      if (r.status !== 200) throw new Error(`enrol failed: ${r.status} ${r.text}`);
      ids.push(r.json.fruit_id);
    }
    const photos = await smallFruitPhotos(nPhotos, peels);
    log(`${name}: pool of ${nSurfaces} enrolled, sending ${nPhotos} photos`);
    const t0 = performance.now();
    const sent = await api(stack.url, 'POST', '/api/fruit/batch', { token: owner.token, body: batchForm(photos) });
    if (sent.status !== 202) throw new Error(`batch refused: ${sent.status} ${sent.text}`);
    const acceptedS = (performance.now() - t0) / 1000;
    let shown = -1;
    const batch = await until(
      async () => {
        const b = await api(stack.url, 'GET', `/api/fruit/batch/${sent.json.batch_id}`, { token: owner.token });
        if (b.json.done >= shown + 20) log(`${name}: ${(shown = b.json.done)}/${b.json.total}`);
        return b.json.status === 'done' ? b.json : null;
      },
      3_600_000,
      250,
    );
    const wallS = (performance.now() - t0) / 1000;
    const work = await fruitBatchRepo(stack.db).workTimes(sent.json.batch_id);
    const right = batch.rows.filter((r: any, i: number) => r.fruit_id === ids[i % nSurfaces]).length;
    const res = {
      config: name,
      photos: nPhotos,
      failed: batch.failed,
      wall_s: round(wallS),
      accepted_s: round(acceptedS),
      throughput_photos_per_s: round(nPhotos / wallS, 3),
      per_photo_ms: { p50: percentile(work, 50), p95: percentile(work, 95), max: Math.max(...work) },
      top1_right: round(right / nPhotos, 3),
      load_average_1m: round(os.loadavg()[0]!, 1),
    };
    log(JSON.stringify(res));
    return res;
  } finally {
    await stack.stop();
  }
}

const results: Record<string, unknown>[] = [];
const loadAtStart = round(os.loadavg()[0]!, 1);
for (const c of configs) results.push(await runOne(c));
const byName = new Map(results.map((r) => [r.config, r.throughput_photos_per_s as number]));
const scaling =
  byName.has('distributed-1') && byName.has('distributed-2') ? round(byName.get('distributed-2')! / byName.get('distributed-1')!, 2) : null;
const doc = {
  benchmark: 'fruit batch identification (POST /api/fruit/batch), end to end',
  date: new Date().toISOString(),
  machine: { ...machineInfo(provider), load_average_1m_at_start: loadAtStart },
  note:
    args.get('note') ??
    'Shared machine: about 8 engineers ran builds and tests on these 2 cores at the same time; read every figure with the load averages recorded.',
  settings: {
    photos: nPhotos,
    pool_fruit: nSurfaces,
    photo_px: 160,
    embedded_worker_concurrency: Number(extraEnv.WORKER_CONCURRENCY ?? 2),
    distributed_worker_concurrency_each: 1,
    env: extraEnv,
  },
  results,
  scaling_1_to_2_workers: scaling,
};
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
console.log(JSON.stringify(doc, null, 2));
process.exit(0);
