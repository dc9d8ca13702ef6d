/**
 * Embedding latency, CUDA execution provider against the CPU one, in one process.
 *
 *   npm run bench:gpu -- --expect cuda [--batches 1,8,32] [--warmup 3] [--iters 30]
 *                        [--cpu-threads 1] [--size 480] [--out benchmarks/results]
 *
 * Needs onnxruntime-node's CUDA provider library in its bin folder and CUDA 13 +
 * cuDNN 9 on LD_LIBRARY_PATH (see models/README.md); without them `--expect cuda`
 * fails and `--expect cpu` (or no `--expect`) times the CPU provider alone.
 *
 * Two paths are timed per batch size and provider:
 * - `embed`: `Embedder.embed()` end to end (sharp resize of each image + model run),
 *   the auto-selected embedder against one loaded with `{ provider: 'cpu' }`
 *   (intra-op threads from MARKLESS_ORT_THREADS, default 1, as in the service);
 * - `model`: `InferenceSession.run` alone on a ready input tensor, the same model
 *   bytes on a CUDA session and on CPU sessions with each `--cpu-threads` count.
 * It also embeds the same images on both providers and reports how far apart the
 * embeddings are (max abs difference, min cosine; they must agree to ≥ 0.999).
 * Images are seeded synthetic bark (`barkPixels`), nothing read from disk.
 * Writes `<out>/gpu-embed-<YYYY-MM-DD>.json` and prints a table to stderr.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as ort from 'onnxruntime-node';
import { Embedder, cosine, readManifest, type Provider } from '../workers/src/vision/embed.js';
import type { DecodedImage } from '../workers/src/vision/intake.js';
import { barkPixels } from '../workers/src/vision/testing/synthetic.js';
import { machineInfo, parseArgs, percentile } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const expect = args.get('expect') as Provider | undefined;
const batches = (args.get('batches') ?? '1,8,32').split(',').map(Number);
const warmup = Number(args.get('warmup') ?? 3);
const iters = Number(args.get('iters') ?? 30);
const cpuThreads = (args.get('cpu-threads') ?? '1').split(',').map(Number);
const size = Number(args.get('size') ?? 480);
const outDir = resolve(args.get('out') ?? 'benchmarks/results');
const log = (m: string): void => void process.stderr.write(`${m}\n`);

if (expect !== undefined && expect !== 'cuda' && expect !== 'cpu') throw new Error(`--expect must be cuda or cpu, not ${String(expect)}`);

function gpuNames(): string[] {
  try {
    return (
      execFileSync('nvidia-smi', ['-L'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')
        .filter((l) => l.trim() !== '')
        // The board's serial number says nothing about performance; keep results free of it.
        .map((l) => l.replace(/ \(UUID: [^)]*\)/, ''))
    );
  } catch {
    return [];
  }
}

const manifest = readManifest();
const modelBytes = readFileSync(join(manifest.dir, manifest.file));

// A CUDA session made directly, first: Embedder.load() falls back to CPU silently,
// so this is where the reason for a CUDA failure gets printed.
let cudaSession: ort.InferenceSession | undefined;
if (expect !== 'cpu') {
  try {
    cudaSession = await ort.InferenceSession.create(modelBytes, { executionProviders: ['cuda'] });
  } catch (err) {
    log(`CUDA session failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const auto = await Embedder.load();
const cpu = await Embedder.load(undefined, { provider: 'cpu' });
log(`auto-selected provider: ${auto.provider}`);
if (expect !== undefined && auto.provider !== expect) {
  log(`expected provider ${expect}, got ${auto.provider}`);
  process.exit(1);
}
if (auto.provider !== 'cuda') cudaSession = undefined;

const maxBatch = Math.max(...batches);
const images: DecodedImage[] = Array.from({ length: maxBatch }, (_, i) => ({
  rgb: barkPixels(40_000 + i, size),
  width: size,
  height: size,
}));

async function time(fn: () => Promise<unknown>): Promise<{ ms_p50: number; ms_p95: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { ms_p50: percentile(ms, 50), ms_p95: percentile(ms, 95) };
}

// Agreement between the providers on the same images.
let agreement: { images: number; max_abs_diff: number; min_cosine: number } | null = null;
if (auto.provider === 'cuda') {
  const a = await auto.embed(images);
  const b = await cpu.embed(images);
  let maxAbs = 0;
  let minCos = 1;
  a.forEach((va, n) => {
    const vb = b[n]!;
    for (let i = 0; i < va.length; i++) maxAbs = Math.max(maxAbs, Math.abs(va[i]! - vb[i]!));
    minCos = Math.min(minCos, cosine(va, vb));
  });
  agreement = { images: a.length, max_abs_diff: maxAbs, min_cosine: minCos };
  log(`agreement over ${a.length} images: max |cuda - cpu| = ${maxAbs.toExponential(2)}, min cosine = ${minCos.toFixed(6)}`);
}

// Input tensors for the model-only path (the same preprocessing as embed()).
const s = auto.side;
function inputFor(batch: number): Record<string, ort.Tensor> {
  const plane = s * s;
  const data = new Float32Array(batch * 3 * plane);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 2654435761) >>> 24) / 255;
  return { [manifest.inputs[0]!.name]: new ort.Tensor('float32', data, [batch, 3, s, s]) };
}
const cpuSessions = await Promise.all(
  cpuThreads.map(async (threads) => ({
    threads,
    session: await ort.InferenceSession.create(modelBytes, { executionProviders: ['cpu'], intraOpNumThreads: threads }),
  })),
);

interface Row {
  path: 'embed' | 'model';
  provider: Provider;
  cpu_threads: number | null;
  batch: number;
  ms_p50: number;
  ms_p95: number;
  ms_per_image_p50: number;
}
const results: Row[] = [];
const embedThreads = Number(process.env.MARKLESS_ORT_THREADS ?? 1);
const row = (path: Row['path'], provider: Provider, threads: number | null, batch: number, t: { ms_p50: number; ms_p95: number }): void => {
  const r: Row = { path, provider, cpu_threads: threads, batch, ...t, ms_per_image_p50: t.ms_p50 / batch };
  results.push(r);
  log(JSON.stringify(r));
};

for (const batch of batches) {
  const imgs = images.slice(0, batch);
  if (auto.provider === 'cuda') row('embed', 'cuda', null, batch, await time(() => auto.embed(imgs)));
  row('embed', 'cpu', embedThreads, batch, await time(() => cpu.embed(imgs)));
  const feeds = inputFor(batch);
  if (cudaSession) {
    const sess = cudaSession;
    row('model', 'cuda', null, batch, await time(() => sess.run(feeds)));
  }
  for (const { threads, session } of cpuSessions) row('model', 'cpu', threads, batch, await time(() => session.run(feeds)));
}

// CPU p50 / CUDA p50 for every CPU row that has a CUDA row to compare with.
const speedup = results
  .filter((r) => r.provider === 'cpu')
  .flatMap((c) => {
    const g = results.find((r) => r.provider === 'cuda' && r.path === c.path && r.batch === c.batch);
    return g ? [{ path: c.path, batch: c.batch, cpu_threads: c.cpu_threads, cpu_over_cuda_p50: c.ms_p50 / g.ms_p50 }] : [];
  });

const fmt = (v: number): string => v.toFixed(2).padStart(9);
log('\npath   provider threads batch    p50 ms    p95 ms  p50/img');
for (const r of results) {
  log(
    `${r.path.padEnd(6)} ${r.provider.padEnd(8)} ${String(r.cpu_threads ?? '-').padStart(7)} ${String(r.batch).padStart(5)} ${fmt(r.ms_p50)} ${fmt(r.ms_p95)} ${fmt(r.ms_per_image_p50)}`,
  );
}
for (const x of speedup) log(`speed-up ${x.path} batch ${x.batch} (cpu ${x.cpu_threads} thread(s)): ${x.cpu_over_cuda_p50.toFixed(2)}x`);

const summary = {
  benchmark: 'gpu-embed',
  images: { count: maxBatch, side: size, source: 'barkPixels seeds 40000..' },
  warmup,
  iterations: iters,
  agreement,
  results,
  speedup,
  model: auto.model,
  machine: { ...machineInfo(auto.provider), gpus: gpuNames(), onnxruntime: ort.env.versions.node ?? null },
  date: new Date().toISOString(),
};
mkdirSync(outDir, { recursive: true });
const file = join(outDir, `gpu-embed-${summary.date.slice(0, 10)}.json`);
writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
log(`wrote ${file}`);
console.log(JSON.stringify(summary));
if (agreement && agreement.min_cosine < 0.999) {
  log(`CUDA and CPU embeddings disagree: min cosine ${agreement.min_cosine}`);
  process.exit(1);
}
