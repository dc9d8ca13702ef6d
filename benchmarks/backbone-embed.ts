/**
 * What an adopted backbone adds to one animal identify: cropping the query to the detected animal
 * and embedding the crop with the owner's fine-tuned model (workers/src/learn/backbone-gallery.ts).
 *
 *   npx tsx benchmarks/backbone-embed.ts --model <fine-tuned .onnx> [--runs 40] [--out file.json]
 *
 * The model is any export of training/backbone.py (192×288, 256-d), e.g. one kept by
 * `bench:accuracy --recipe backbone --cache <dir>`. The photo is a generated field scene.
 */
import { readFileSync } from 'node:fs';
import { OwnerBackbone } from '../workers/src/learn/backbone.js';
import { subjectCrop } from '../workers/src/learn/backbone-train.js';
import { decodeImage } from '../workers/src/vision/intake.js';
import { animalScene } from '../workers/src/vision/testing/animal-scene.js';
import { machineInfo, parseArgs, percentile, saveResult } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const runs = Number(args.get('runs') ?? 40);
const model = await OwnerBackbone.fromBytes(new Uint8Array(readFileSync(args.get('model') ?? '')), { height: 192, width: 288, dim: 256 });
const img = await decodeImage(await animalScene({ coat: 702, shot: 0, dx: 0 }));
const crop: number[] = [];
const embed: number[] = [];
for (let i = 0; i < runs + 3; i++) {
  const t0 = performance.now();
  const c = await subjectCrop(img, 'animal', null);
  const t1 = performance.now();
  await model.embed([c]);
  const t2 = performance.now();
  // The first runs load the detector and warm the session.
  if (i >= 3) {
    crop.push(t1 - t0);
    embed.push(t2 - t1);
  }
}
const result = {
  benchmark: 'backbone-embed',
  runs,
  ms_detect_and_crop_p50: percentile(crop, 50),
  ms_embed_p50: percentile(embed, 50),
  ms_embed_p95: percentile(embed, 95),
  ms_total_p50: percentile(
    crop.map((c, i) => c + embed[i]!),
    50,
  ),
  threads: Number(process.env.MARKLESS_ORT_THREADS ?? 1),
  machine: machineInfo('cpu'),
  date: new Date().toISOString(),
};
saveResult(args.get('out'), result);
console.log(JSON.stringify(result));
