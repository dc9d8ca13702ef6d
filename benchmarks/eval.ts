/**
 * `npm run eval -- --model <dir with manifest.json + onnx> --labels <export folder or zip>
 *   [--kind tree|fruit|animal] [--out result.json] [--plots <dir>]`
 *
 * Evaluates a candidate model on exported labels side by side with the model in service (the
 * registry's, MODELS_DIR included): top-1/top-5, AUC, accept at FMR ≤ 1%, match and uncertain
 * rates (benchmarks/metrics.ts, the same code as bench:accuracy), and with --plots the SVG
 * score-separation histogram and ROC of each. Both use the default calibration, so the scores
 * compare models, not fits. Prints one JSON object as the last stdout line.
 */
import { resolve } from 'node:path';
import { RecognitionEngine } from '../workers/src/vision/engine.js';
import type { Kind } from '../workers/src/vision/settings.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';
import { writePlots } from './plots.js';
import { candidateEngine, evaluate, readLabels } from './eval-core.js';

const args = parseArgs(process.argv.slice(2));
const modelDir = args.get('model');
const labelsPath = args.get('labels');
if (!modelDir || !labelsPath)
  throw new Error('usage: npm run eval -- --model <dir> --labels <export folder or zip> [--kind tree] [--out file] [--plots dir]');
const labels = readLabels(labelsPath);
const kind = (args.get('kind') ?? labels.rows.find((r) => r.split === 'gallery')?.kind ?? 'tree') as Kind;
const servingEngine = await RecognitionEngine.create({ calibration: {} });
const serving = await evaluate(servingEngine, labels, kind);
const candidate = await evaluate(await candidateEngine(modelDir), labels, kind);
const plotsDir = args.get('plots');
const plots = plotsDir
  ? Object.fromEntries(
      (
        [
          ['serving', serving],
          ['candidate', candidate],
        ] as const
      ).map(([name, r]) => [
        name,
        writePlots(
          plotsDir,
          `eval-${name}-${r.model.version.split('+')[0]}`,
          r.per_query,
          r.calibration,
          `${name} ${r.model.name}@${r.model.version.split('+')[0]}`,
        ),
      ]),
    )
  : undefined;
const pick = (r: typeof serving) => ({
  top1: r.top1,
  top5: r.top5,
  auc: r.auc,
  accept_at_far1: r.accept_at_far1,
  false_match_rate: r.false_match_rate,
});
const result = {
  labels: resolve(labelsPath),
  kind,
  n_gallery: serving.n_gallery,
  n_queries_enrolled: serving.n_queries_enrolled,
  n_queries_open_set: serving.n_queries_open_set,
  side_by_side: { serving: pick(serving), candidate: pick(candidate) },
  serving,
  candidate,
  ...(plots ? { plots } : {}),
  machine: machineInfo(servingEngine.provider),
  date: new Date().toISOString(),
};
const out = args.get('out');
saveResult(out, result);
console.log(JSON.stringify(result));
