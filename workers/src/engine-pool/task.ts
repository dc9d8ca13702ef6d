/**
 * One engine pool thread (piscina): the ONNX sessions are created once per thread, on its first
 * task, and reused for every task after. Tasks are plain data in and out (structured clone).
 */
import { threadId } from 'node:worker_threads';
import { RecognitionEngine, type DescribeOptions, type StageTimings } from '../vision/engine.js';
import { loadRegistry, readManifestFile } from '../vision/registry.js';
import { Embedder } from '../vision/embed.js';
import { loadDetector, type DetectOptions } from '../vision/detector.js';
import { verifyLocal } from '../vision/local-features.js';
import type { KindSettings } from '../vision/settings.js';
import { detectViews, type ViewOptions } from '../survey/views.js';
import { estimateMotion, type GreyFrame } from '../survey/motion.js';
import type { Box } from '../vision/boxes.js';
import { toWire, type WireError } from './wire.js';

const engines = new Map<string, Promise<RecognitionEngine>>();
/** The engine of the bundled models ('') or of a registered model's folder, once per thread. */
function engineFor(modelDir: string): Promise<RecognitionEngine> {
  let e = engines.get(modelDir);
  if (!e) {
    if (!modelDir) e = RecognitionEngine.create();
    else {
      const entry = readManifestFile(modelDir).models.find((m) => m.role === 'global-embedding')!;
      e = Embedder.load({ ...entry, dir: modelDir, origin: 'operator' }).then((embedder) =>
        RecognitionEngine.create({ embedder, calibration: {}, registry: loadRegistry({ operatorDir: modelDir }) }),
      );
    }
    engines.set(modelDir, e);
  }
  return e;
}

export interface DescribeTask {
  op: 'describe';
  modelDir: string;
  items: { bytes: Uint8Array; opts: DescribeOptions }[];
}

/** Named CPU tasks other parts of the service may add (`EnginePool.runJob`). */
const jobs: Record<string, (payload: unknown) => Promise<unknown>> = {
  /** Warm-up: load the sessions before the first photo arrives. */
  warm: async (p) => void (await engineFor(String((p as { modelDir?: string })?.modelDir ?? ''))),
  /** Objects in one decoded frame (survey videos), with the detector this thread loaded once. */
  detect: async (p) => {
    const d = p as DetectPayload;
    const rgb = Buffer.from(d.rgb.buffer, d.rgb.byteOffset, d.rgb.byteLength);
    return (await loadDetector()).detect({ rgb, width: d.width, height: d.height }, d.opts);
  },
  /**
   * Every look at one frame (survey/views.ts) in this thread: the frame crosses threads once, not
   * once a look, and the mirror, the tiles and the fusion stay off the survey's own thread.
   */
  detectLooks: async (p) => {
    const d = p as DetectLooksPayload;
    const rgb = Buffer.from(d.rgb.buffer, d.rgb.byteOffset, d.rgb.byteLength);
    return detectViews(await loadDetector(), { rgb, width: d.width, height: d.height }, d.opts, d.views);
  },
  /** Camera motion between two grey frames (survey/motion.ts), OpenCV.js loaded once a thread. */
  motion: async (p) => {
    const m = p as MotionPayload;
    return estimateMotion(m.prev, m.cur, m.boxes);
  },
  /** Keypoint verification of one query against its shortlist (the engine's `verifier`). */
  verify: async (p) => {
    const v = p as VerifyPayload;
    return [...(await verifyLocal(v.query, new Map(v.gallery), v.ids, v.settings))];
  },
};

export interface DetectPayload {
  rgb: Uint8Array;
  width: number;
  height: number;
  opts: DetectOptions;
}

export interface DetectLooksPayload extends DetectPayload {
  views: ViewOptions;
}

export interface MotionPayload {
  prev: GreyFrame;
  cur: GreyFrame;
  boxes: Box[];
}

export interface VerifyPayload {
  query: Uint8Array;
  gallery: [string, Uint8Array][];
  ids: readonly string[];
  settings: KindSettings;
}

export type TaskIn = DescribeTask | { op: 'job'; name: string; payload: unknown };
export type DescribeOut = {
  results: ({ ok: true; d: unknown } | { ok: false; error: WireError })[];
  timings: StageTimings;
  threadId: number;
};

export default async function run(task: TaskIn): Promise<unknown> {
  if (task.op === 'describe') {
    const engine = await engineFor(task.modelDir);
    const timings: StageTimings = {};
    const out = await engine.describeMany(task.items, timings);
    return {
      results: out.map((r) => (r instanceof Error ? { ok: false, error: toWire(r) } : { ok: true, d: r })),
      timings,
      threadId,
    } satisfies DescribeOut;
  }
  const fn = jobs[task.name];
  if (!fn) throw new Error(`no pool job named ${task.name}`);
  return fn(task.payload);
}
