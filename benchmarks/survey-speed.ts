/**
 * Survey speed on a 720p clip at 30 frames/s, every frame (`npm run bench:survey-speed`):
 *
 *   npx tsx benchmarks/survey-speed.ts [--seconds 10] [--runs 3] [--max-side 960] [--looks all|whole] [--out benchmarks/results/survey-speed-<date>.json]
 *
 * Needs no dataset: the clip is bench:survey's generated apple-tree walk, encoded by ffmpeg at
 * 1280×720 and 30 frames/s. Each run surveys it as the survey job does (workers/src/survey/pipeline.ts:
 * ffmpeg decodes and scales to `max-side`, YOLOX's looks and the camera motion on the engine pool with
 * the execution provider the pool's threads picked, CUDA when its library and a GPU are present;
 * tracking on the job's thread), with no frame skipped, so frames/s ≥ 30 is real time. `--looks` is the
 * operator's SURVEY_DETECT_LOOKS: `all` (default) takes the detector's four looks a frame, `whole` one. Prints the median
 * and saves every run with the machine and the provider. `MARKLESS_DISABLE_CUDA=1` times the CPU.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createEnginePool } from '../workers/src/engine-pool/index.js';
import { loadDetector } from '../workers/src/vision/detector.js';
import { surveyVideo } from '../workers/src/survey/pipeline.js';
import { machineInfo, parseArgs, percentile, saveResult } from './machine.js';
import { renderClip } from './survey/render.js';
import { fruitScene } from './survey/scenes.js';
import { looksFor } from '../workers/src/survey/views.js';

const FPS = 30;
const args = parseArgs(process.argv.slice(2));
const seconds = Number(args.get('seconds') ?? 10);
const runs = Number(args.get('runs') ?? 3);
const maxSide = Number(args.get('max-side') ?? 960);
const looks = args.get('looks') === 'whole' ? 'whole' : 'all';
const views = looksFor(looks);
const out = args.get('out') ?? `benchmarks/results/survey-speed-${new Date().toISOString().slice(0, 10)}.json`;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

// The pool's threads choose their provider as this one does (same manifest, same library check).
const probe = await loadDetector();
const provider = probe.provider;
const pool = createEnginePool();
const scene = { ...(await fruitScene(seconds * FPS)), fps: FPS };
const { video } = await renderClip(scene, { width: 1280, height: 720 });
const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-survey-speed-'));
const file = path.join(dir, 'clip720p30.mp4');
await writeFile(file, video);

// As the survey job runs it on the engine pool: every look at a frame on one thread, camera motion there too.
const survey = { detector: { detect: pool.detect, detectLooks: pool.detectLooks }, motion: pool.motion, ahead: pool.settings.size };
const perRun: { frames: number; ms: number; frames_per_second: number; tracks: number }[] = [];
try {
  // One untimed pass: sessions warm up (CUDA compiles its kernels on the first run).
  await surveyVideo(file, { kind: 'fruit', fps: FPS, maxSide, views }, survey);
  for (let i = 0; i < runs; i++) {
    const pass = await surveyVideo(file, { kind: 'fruit', fps: FPS, maxSide, views }, survey);
    perRun.push({
      frames: pass.frames,
      ms: Math.round(pass.ms),
      frames_per_second: round((pass.frames * 1000) / pass.ms),
      tracks: pass.tracks.length,
    });
    process.stderr.write(
      `run ${i + 1}: ${perRun.at(-1)!.frames_per_second} frames/s over ${pass.frames} frames, ${pass.tracks.length} tracks\n`,
    );
  }
} finally {
  await pool.close();
  await rm(dir, { recursive: true, force: true });
}

const median = percentile(
  perRun.map((r) => r.frames_per_second),
  50,
);
const result = {
  benchmark: 'survey-speed',
  date: new Date().toISOString(),
  clip: { width: 1280, height: 720, fps: FPS, seconds, decoded_max_side: maxSide, every_frame: true },
  looks,
  pool: pool.settings,
  machine: machineInfo(provider),
  runs: perRun,
  frames_per_second_median: round(median),
  real_time_factor: round(median / FPS, 2),
};
saveResult(out, result);
console.log(
  `survey of a 1280x720 clip at ${FPS} frames/s, every frame, provider ${provider}, ${looks === 'all' ? 'four looks' : 'one look'} a frame, pool ${pool.settings.size} threads: ` +
    `median ${round(median)} frames/s (${round(median / FPS, 2)}x real time) over ${runs} runs`,
);
console.log(JSON.stringify({ provider, looks, frames_per_second_median: round(median), real_time_factor: round(median / FPS, 2) }));
