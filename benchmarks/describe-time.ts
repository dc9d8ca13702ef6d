/**
 * Describe time per photo of two engines side by side, in one run, on the same real photos: the
 * shipped engine and one whose global embedding is a candidate folder (a `train:reid --registry`
 * export). The two describe each photo in turn, alternating which goes first, so load on the
 * machine falls on both alike; the result gives each one's median and the ratio of the medians.
 *
 *   npx tsx benchmarks/describe-time.ts --candidate /tmp/reid-model \
 *     --protocol ../shared/datasets/holstein-dev/protocol.json [--photos 40] [--out file.json]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RecognitionEngine } from '../workers/src/vision/engine.js';
import type { Kind } from '../workers/src/vision/settings.js';
import { candidateEngine } from './eval-core.js';
import { machineInfo, parseArgs, percentile, saveResult } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const protocolPath = args.get('protocol');
const candidate = args.get('candidate');
if (!protocolPath || !candidate) throw new Error('--protocol <protocol.json> and --candidate <model folder> are required');
const n = Number(args.get('photos') ?? 40);
const proto = JSON.parse(readFileSync(protocolPath, 'utf8')) as { kind: Kind; gallery: { path?: string; file?: string }[] };
const root = dirname(protocolPath);
const stride = Math.max(1, Math.floor(proto.gallery.length / n));
const photos = proto.gallery
  .filter((_, i) => i % stride === 0)
  .slice(0, n)
  .map((g) => readFileSync(join(root, (g.path ?? g.file)!)));

const engines = { shipped: await RecognitionEngine.create(), candidate: await candidateEngine(candidate) };
const times: Record<keyof typeof engines, number[]> = { shipped: [], candidate: [] };
const describe = async (k: keyof typeof engines, bytes: Buffer) => {
  const t0 = performance.now();
  await engines[k].describe(bytes, { kind: proto.kind, enforceQuality: false });
  return performance.now() - t0;
};
// Two warm-up photos load every model and session.
for (const b of photos.slice(0, 2)) for (const k of ['shipped', 'candidate'] as const) await describe(k, b);
for (const [i, b] of photos.entries()) {
  const order = i % 2 ? (['candidate', 'shipped'] as const) : (['shipped', 'candidate'] as const);
  for (const k of order) times[k].push(await describe(k, b));
}
const p50 = (xs: number[]) => Math.round(percentile(xs, 50) * 10) / 10;
const result = {
  protocol: protocolPath,
  kind: proto.kind,
  photos: photos.length,
  candidate,
  models: { shipped: engines.shipped.model, candidate: engines.candidate.model },
  ms_describe_p50: { shipped: p50(times.shipped), candidate: p50(times.candidate) },
  ratio_p50: Math.round((percentile(times.candidate, 50) / percentile(times.shipped, 50)) * 100) / 100,
  machine: machineInfo('cpu'),
};
console.log(JSON.stringify(result));
if (args.get('out')) saveResult(args.get('out')!, result);
