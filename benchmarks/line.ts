/**
 * Packing-line benchmark (issue 22): a steady stream of fruit photos at fixed offered rates
 * through the HTTP API (POST /api/fruit/identify, one photo each), embedded and distributed.
 *
 *   npm run bench:line -- [--rates 2,4,8] [--seconds 30] [--px 160] [--configs embedded,distributed-1,distributed-2,distributed-4]
 *                         [--batch 120] [--batch-px 160,640] [--batch-configs embedded] [--out benchmarks/results/line-<date>.json]
 *
 * After the stream, each configuration also takes one fruit batch of `--batch` photos per size in
 * `--batch-px` (POST /api/fruit/batch, the issue's table), with /api/health polled meanwhile.
 *
 * Per offered rate: photos per second done, p50/p95/p99 latency per photo (request to answer),
 * /api/health p99 (polled every 100 ms meanwhile), and CPU seconds per second of the service's
 * processes. Before the stream, the same run measures the models' own floor on this machine:
 * the global embedding's session.run alone (one photo, and a batch of 8, per photo) and the
 * engine's describe unbatched and batched (per photo), so ratios are against figures taken under
 * the same load. Photos are generated peel views (test/support/images.ts) of `--px` pixels,
 * against a pool of 8 enrolled fruit. A photo is sent every 1/rate s whatever happened to the
 * previous ones (open loop); answers past 120 s count as failures.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { api, signup } from '../test/support/app.js';
import { otherView, photoForm } from '../test/support/images.js';
import { batchForm, surface } from '../test/support/fruit-batch.js';
import { machineInfo, parseArgs, percentile } from './machine.js';
import { distributed, embedded, type Stack } from './stacks.js';
import { Embedder } from '../workers/src/vision/embed.js';
import { RecognitionEngine, type StageTimings } from '../workers/src/vision/engine.js';
import { decodeImage } from '../workers/src/vision/intake.js';
import { settingsFor } from '../workers/src/vision/settings.js';
import { XFeat } from '../workers/src/vision/xfeat.js';

const args = parseArgs(process.argv.slice(2));
const rates = (args.get('rates') ?? '2,4,8').split(',').map(Number);
const seconds = Number(args.get('seconds') ?? 30);
const px = Number(args.get('px') ?? 160);
const configs = (args.get('configs') ?? 'embedded,distributed-1,distributed-2,distributed-4').split(',');
const batchPhotos = Number(args.get('batch') ?? 120);
const batchConfigs = (args.get('batch-configs') ?? 'embedded').split(',');
const batchPx = (args.get('batch-px') ?? '160,640').split(',').filter(Boolean).map(Number);
const out = args.get('out') ?? `benchmarks/results/line-${new Date().toISOString().slice(0, 10)}.json`;
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds used so far by this process (API, job host and pool threads) and the given children. */
function cpuSeconds(pids: readonly number[] = []): number {
  const u = process.cpuUsage();
  let s = (u.user + u.system) / 1e6;
  const tick = 100; // USER_HZ on Linux
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      s += (Number(f[11]) + Number(f[12])) / tick;
    } catch {
      // A worker that has exited has nothing more to count.
    }
  }
  return s;
}

/** The models' own speed on this machine, now: the floor the service is compared with. */
async function floor(photos: Buffer[]) {
  const emb = await Embedder.load(undefined, { provider: 'cpu' });
  const imgs = await Promise.all(photos.slice(0, 8).map((p) => decodeImage(p)));
  const time = async (n: number, fn: () => Promise<unknown>) => {
    await fn();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn();
    return (performance.now() - t0) / n;
  };
  const one = await time(20, () => emb.embed([imgs[0]!]));
  const eight = (await time(5, () => emb.embed(imgs))) / imgs.length;
  // Fruit's local features (settings.ts): XFeat at the kind's side, the model with its keypoint decoding.
  const fs = settingsFor('fruit');
  const xfeat = await XFeat.load();
  const xfeatOne = await time(10, () =>
    xfeat.extract([imgs[0]!], { side: fs.localSide, topK: fs.xfeatTopK, maxUpscale: fs.xfeatMaxUpscale }),
  );
  const engine = await RecognitionEngine.create({ embedder: emb });
  const describeOne = await time(10, () => engine.describe(photos[0]!, { kind: 'fruit', enforceQuality: false }));
  const timings: StageTimings = {};
  const batch = photos.slice(0, 8).map((bytes) => ({ bytes, opts: { kind: 'fruit' as const, enforceQuality: false } }));
  const describeBatched = (await time(3, () => engine.describeMany(batch, timings))) / batch.length;
  const perPhotoStage = Object.fromEntries(
    Object.entries(timings).map(([k, v]) => [k, round(((v as number) * 1000) / (4 * batch.length), 2)]),
  );
  return {
    global_embedding_session_ms: { one_photo: round(one, 2), per_photo_in_batch_of_8: round(eight, 2) },
    engine_describe_ms: { unbatched: round(describeOne, 2), per_photo_in_batch_of_8: round(describeBatched, 2) },
    xfeat_extract_ms: { one_photo: round(xfeatOne, 2), side: fs.localSide, max_upscale: fs.xfeatMaxUpscale, top_k: fs.xfeatTopK },
    engine_stages_ms_per_photo_batched: perPhotoStage,
    models_sum_ms: round(eight + xfeatOne, 2),
    ratio_batched_describe_to_models: round(describeBatched / (eight + xfeatOne), 2),
  };
}

/** One identify to its answer: 200 at once, or 202 (past JOB_WAIT_MS) followed by polling the job. */
async function answered(stack: Stack, token: string, photo: Buffer): Promise<boolean> {
  const r = await api(stack.url, 'POST', '/api/fruit/identify', { token, body: photoForm([photo]) });
  if (r.status === 200) return true;
  if (r.status !== 202) return false;
  for (;;) {
    await sleep(500);
    const j = await api(stack.url, 'GET', `/api/jobs/${r.json.job_id}`, { token });
    if (j.json?.status === 'completed') return true;
    if (j.json?.status === 'failed' || j.status !== 200) return false;
  }
}

/** Polls /api/health every 100 ms until stopped; `samples` are the answer times in ms. */
function pollHealth(stack: Stack): { samples: number[]; stop: () => Promise<void> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const r = await api(stack.url, 'GET', '/api/health').catch(() => null);
      if (r?.status === 200) samples.push(performance.now() - t0);
      await sleep(100);
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

async function stream(stack: Stack, token: string, photos: Buffer[], rate: number) {
  const lat: number[] = [];
  let failed = 0;
  const probe = pollHealth(stack);
  const health = probe.samples;
  const cpu0 = cpuSeconds(stack.pids);
  const t0 = performance.now();
  const sent: Promise<void>[] = [];
  const n = Math.round(rate * seconds);
  for (let i = 0; i < n; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const s = performance.now();
    sent.push(
      Promise.race([answered(stack, token, photos[i % photos.length]!), sleep(120_000).then(() => false)]).then(
        (ok) => {
          if (ok) lat.push(performance.now() - s);
          else failed++;
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(sent);
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(stack.pids) - cpu0;
  await probe.stop();
  return {
    offered_per_s: rate,
    sent: n,
    done: lat.length,
    failed,
    wall_s: round(wall),
    done_per_s: round(lat.length / wall, 2),
    latency_ms: { p50: round(percentile(lat, 50)), p95: round(percentile(lat, 95)), p99: round(percentile(lat, 99)) },
    health_ms: { p50: round(percentile(health, 50)), p99: round(percentile(health, 99)), samples: health.length },
    cpu_cores_busy: round(cpu / wall, 2),
    load_average_1m: round(os.loadavg()[0]!),
  };
}

/** One fruit batch of `n` photos of `side` px (the table): photos/s to its last row, and /api/health meanwhile. */
async function batchRun(stack: Stack, token: string, peels: Buffer[], n: number, side: number) {
  const photos = await Promise.all(
    Array.from({ length: n }, async (_, i) => ({
      name: `b-${i}.jpg`,
      bytes: await sharp(await otherView(peels[i % peels.length]!, 70_000 + i))
        .resize(side, side)
        .jpeg({ quality: 85 })
        .toBuffer(),
    })),
  );
  const probe = pollHealth(stack);
  const health = probe.samples;
  const cpu0 = cpuSeconds(stack.pids);
  const t0 = performance.now();
  const sent = await api(stack.url, 'POST', '/api/fruit/batch', { token, body: batchForm(photos) });
  if (sent.status !== 202) throw new Error(`batch refused: ${sent.status} ${sent.text}`);
  for (;;) {
    const b = await api(stack.url, 'GET', `/api/fruit/batch/${sent.json.batch_id}`, { token });
    if (b.json.status === 'done') break;
    await sleep(250);
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(stack.pids) - cpu0;
  await probe.stop();
  return {
    photos: n,
    photo_px: side,
    wall_s: round(wall),
    photos_per_s: round(n / wall, 2),
    health_ms: { p50: round(percentile(health, 50)), p99: round(percentile(health, 99)), samples: health.length },
    cpu_cores_busy: round(cpu / wall, 2),
    load_average_1m: round(os.loadavg()[0]!),
  };
}

/**
 * Mean time per call of each pipeline stage over the whole configuration, from the service's own
 * /metrics (`markless_stage_seconds`; engine stages are per batch). Embedded only: distributed
 * workers keep their metrics in their own processes (METRICS_PORT).
 */
async function stages(stack: Stack): Promise<Record<string, { calls: number; mean_ms: number }> | null> {
  const m = await api(stack.url, 'GET', '/metrics');
  if (m.status !== 200) return null;
  const out: Record<string, { calls: number; mean_ms: number }> = {};
  for (const [, stage, sum] of m.text.matchAll(/^markless_stage_seconds_sum\{stage="([a-z]+)"\} ([0-9.e+-]+)$/gm)) {
    const count = Number(new RegExp(`^markless_stage_seconds_count\\{stage="${stage}"\\} ([0-9.e+-]+)$`, 'm').exec(m.text)?.[1] ?? 0);
    if (count) out[stage!] = { calls: count, mean_ms: round((Number(sum) / count) * 1000, 2) };
  }
  return Object.keys(out).length ? out : null;
}

async function runConfig(name: string, photos: Buffer[], peels: Buffer[]) {
  const workers = name === 'embedded' ? 0 : Number(name.split('-')[1]);
  // Each worker process: enough jobs at once to fill its pool's batches; one pool thread per core share.
  // One packing line is one account: let it run as many jobs at once as a worker takes (the default cap is 2),
  // and send more than the per-account request rate limit (health polls and job polls count too).
  const line = { WORKER_CONCURRENCY: '4', ACCOUNT_INFLIGHT_CAP: '8', RATE_LIMIT_PER_MIN: '100000' };
  // Distributed workers share this machine: each gets its share of the cores as pool threads, as an operator would set it.
  const share = String(Math.max(1, Math.floor(os.availableParallelism() / Math.max(1, workers))));
  const stack = workers
    ? await distributed(workers, { ...line, ENGINE_POOL_SIZE: share })
    : await embedded({ ...line, METRICS_ACCESS: 'public' });
  try {
    const owner = await signup(stack.url, 'line');
    for (const peel of peels) {
      const r = await api(stack.url, 'POST', '/api/fruit/enroll', {
        token: owner.token,
        body: photoForm([await otherView(peel, 1), await otherView(peel, 2)]),
      });
      if (r.status !== 200) throw new Error(`enrol failed: ${r.status} ${r.text}`);
    }
    // Warm the pool threads (sessions load on first use) before measuring.
    await Promise.all(
      photos.slice(0, 4).map((p) => api(stack.url, 'POST', '/api/fruit/identify', { token: owner.token, body: photoForm([p]) })),
    );
    const runs = [];
    for (const rate of rates) {
      const r = await stream(stack, owner.token, photos, rate);
      log(`${name} @ ${rate}/s: ${JSON.stringify(r)}`);
      runs.push(r);
    }
    const batches = [];
    for (const side of batchConfigs.includes(name) ? batchPx : []) {
      const b = await batchRun(stack, owner.token, peels, batchPhotos, side);
      log(`${name} batch ${batchPhotos} @ ${side} px: ${JSON.stringify(b)}`);
      batches.push(b);
    }
    return { config: name, workers, runs, batches, stages_ms_per_call: await stages(stack) };
  } finally {
    await stack.stop();
  }
}

const peels = await Promise.all(Array.from({ length: 8 }, (_, i) => surface(9100 + i)));
const photos = await Promise.all(
  Array.from({ length: 40 }, async (_, i) =>
    sharp(await otherView(peels[i % peels.length]!, 60_000 + i))
      .resize(px, px)
      .jpeg({ quality: 85 })
      .toBuffer(),
  ),
);
const loadAtStart = round(os.loadavg()[0]!);
log("measuring the models' own floor");
const models = await floor(photos);
log(JSON.stringify(models));
const results = [];
for (const c of configs) results.push(await runConfig(c, photos, peels));
const doc = {
  benchmark: 'packing line: steady stream of single fruit photos, POST /api/fruit/identify',
  date: new Date().toISOString(),
  machine: {
    ...machineInfo('cpu (onnxruntime-node CPU provider; no GPU lent, the CUDA path is not measured)'),
    load_average_1m_at_start: loadAtStart,
  },
  note: 'Shared machine: other engineers ran builds, tests and benchmarks on these cores during the run (see the load averages); figures are lower bounds, to be re-run on a quiet machine.',
  settings: {
    photo_px: px,
    batch_photos: batchPhotos,
    batch_px: batchPx,
    batch_configs: batchConfigs,
    distributed_pool_threads_per_worker: 'cores / workers (at least 1)',
    seconds_per_rate: seconds,
    rates,
    pool_fruit: peels.length,
    worker_concurrency: 4,
    account_inflight_cap: 8,
    rate_limit_per_min: 100000,
    engine: 'ENGINE_POOL_SIZE, ENGINE_BATCH_SIZE, ENGINE_LINGER_MS at their defaults',
  },
  models_floor: models,
  results,
};
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
console.log(JSON.stringify(doc, null, 2));
process.exit(0);
