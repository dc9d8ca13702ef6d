/**
 * The batched RANSAC graph (robust-fit.ts, what a GPU worker verifies with) against USAC (the CPU
 * path), on the development sets, through the engine as served (`bench:accuracy`):
 *
 *   npm run bench:verify-twins -- --protocols <dir>/protocol.json,<dir>/protocol.json@400
 *     --cache <dir outside the repo> [--out-dir benchmarks/results/verify-twins] [--reuse]
 *
 * Three runs per set, on the same cached descriptors and the kind's shipped calibration: USAC; USAC reseeded (reseed.ts), which is
 * how far USAC's verdicts move by chance alone; the graph on this machine's provider (the CPU twin
 * without a GPU). For each: verdict shares, false matches, top-1 and the query time; and the
 * queries whose verdict or top answer differs from USAC's. `@N` after a protocol samples about N of
 * its queries (bench:accuracy's `--sample-queries`). `--reuse` keeps a run already in the output
 * folder (its file name says the sample).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fitProvider } from '../workers/src/vision/robust-fit.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';

interface Run {
  top1: number;
  false_match_rate: number;
  verdict_shares: Record<'match' | 'uncertain' | 'no_match', number>;
  ms_query_p50: number;
  n_queries: number;
  per_query: { verdict: string; correct: boolean; open_set: boolean }[];
}

const args = parseArgs(process.argv.slice(2));
const protocols = (args.get('protocols') ?? '').split(',').filter(Boolean);
const cache = args.get('cache');
if (protocols.length === 0 || !cache) throw new Error('usage: --protocols <a>/protocol.json,<b>/protocol.json --cache <dir>');
const outDir = resolve(args.get('out-dir') ?? 'benchmarks/results/verify-twins');
const VARIANTS: Record<string, string[]> = {
  usac: ['--fit', 'usac'],
  'usac-reseeded': ['--fit', 'usac', '--reseed', '1'],
  graph: ['--fit', 'graph'],
};

/** `path` or `path@N` (about N queries sampled). */
function parseSet(spec: string): { protocol: string; set: string; sample?: string } {
  const [protocol, sample] = spec.split('@') as [string, string | undefined];
  return { protocol, set: basename(dirname(protocol)) + (sample ? `-${sample}` : ''), sample };
}

function run(spec: string, variant: string): Run {
  const { protocol, set, sample: n } = parseSet(spec);
  const out = join(outDir, `${set}-${variant}.json`);
  if (!(args.has('reuse') && existsSync(out))) {
    const sample = n ? ['--sample-queries', n] : [];
    const res = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'benchmarks/accuracy.ts',
        '--protocol',
        protocol,
        '--cache',
        cache!,
        '--cache-queries',
        // Every run served by the kind's shipped calibration, so that only the fit differs.
        '--calib-samples',
        '0',
        ...sample,
        ...VARIANTS[variant]!,
        '--out',
        out,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (res.status !== 0) throw new Error(`bench:accuracy ${set} ${variant} exited ${res.status}`);
  }
  return JSON.parse(readFileSync(out, 'utf8')) as Run;
}

/** Queries whose verdict, or whether the top answer was right, differs between two runs. */
function differing(a: Run, b: Run): number {
  return a.per_query.filter((q, i) => q.verdict !== b.per_query[i]!.verdict || q.correct !== b.per_query[i]!.correct).length;
}

const pct = (x: number) => Math.round(x * 1000) / 10;
const sets = protocols.map((spec) => {
  const runs = Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, run(spec, v)])) as Record<string, Run>;
  const usac = runs.usac!;
  return {
    set: parseSet(spec).set,
    queries: usac.n_queries,
    runs: Object.fromEntries(
      Object.entries(runs).map(([v, r]) => [
        v,
        {
          match: pct(r.verdict_shares.match),
          uncertain: pct(r.verdict_shares.uncertain),
          no_match: pct(r.verdict_shares.no_match),
          false_match: pct(r.false_match_rate),
          top1: pct(r.top1),
          ms_query_p50: Math.round(r.ms_query_p50),
          differ_from_usac: v === 'usac' ? 0 : differing(usac, r),
        },
      ]),
    ),
  };
});

const result = { provider: await fitProvider(), machine: machineInfo(await fitProvider()), date: new Date().toISOString(), sets };
saveResult(join(outDir, 'summary.json'), result);
console.log('| set | run | match % | uncertain % | no_match % | false match % | top-1 % | query ms p50 | queries differing from USAC |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const s of sets)
  for (const [v, r] of Object.entries(s.runs))
    console.log(
      `| ${s.set} (${s.queries}) | ${v} | ${r.match} | ${r.uncertain} | ${r.no_match} | ${r.false_match} | ${r.top1} | ${r.ms_query_p50} | ${r.differ_from_usac} |`,
    );
