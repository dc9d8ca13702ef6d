/**
 * Collects accuracy results into one ablation table:
 *
 *   npx tsx benchmarks/ablation-table.ts [--dir benchmarks/results] [--out benchmarks/results/ablation.md]
 *
 * Reads `<dir>/<dataset>.json` (the engine's own per-kind choice), every
 * `<dir>/ablation/*.json` (variants run with --local / --crop / --shortlist) and the learned
 * passes of `<dir>/learned-*.json` (head on) and `<dir>/backbone-*.json` (fine-tuned backbone),
 * and writes a Markdown table, one row per dataset and variant.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingsFor } from '../workers/src/vision/settings.js';
import { parseArgs } from './machine.js';

interface Result {
  dataset: string;
  variant?: string;
  n_queries: number;
  query_sampling: string;
  top1: number;
  top5: number;
  auc: number;
  accept_at_far1: number;
  false_match_rate: number;
  uncertain_rate: number;
  shortlist_recall?: number;
  settings?: { local: string; subject: string; shortlist: number; perIndividual: number };
  shortlist_variants?: Record<string, Record<string, number>>;
  ms_query_p95: number;
  descriptor_cache?: string;
  machine: { load_average_1m_at_end: number };
  date: string;
}

const args = parseArgs(process.argv.slice(2));
const dir = args.get('dir') ?? 'benchmarks/results';
const out = args.get('out') ?? join(dir, 'ablation.md');
const files = [
  ...['nyala-dev.json', 'holstein-dev.json'].map((f) => join(dir, f)),
  ...(existsSync(join(dir, 'ablation'))
    ? readdirSync(join(dir, 'ablation'))
        .filter((f) => f.endsWith('.json'))
        .map((f) => join(dir, 'ablation', f))
    : []),
].filter((f) => existsSync(f));
const learned = readdirSync(dir)
  .filter((f) => /^(learned|backbone)-.*\.json$/.test(f) && !f.includes('embed'))
  .map((f) => join(dir, f));
const rows = [
  ...files.map((f) => ({ f, r: JSON.parse(readFileSync(f, 'utf8')) as Result })),
  ...learned.map((f) => ({ f, r: (JSON.parse(readFileSync(f, 'utf8')) as { learned_from_gallery: Result }).learned_from_gallery })),
].sort((a, b) => (a.r.dataset + a.r.variant).localeCompare(b.r.dataset + b.r.variant));
const animal = settingsFor('animal');
/** The row run with the animal kind's current settings. */
const isService = (r: Result): boolean =>
  !!r.settings &&
  r.settings.local === animal.local &&
  r.settings.subject === animal.subject &&
  r.settings.shortlist === animal.shortlist &&
  !/main|learned|fine-tuned/.test(r.variant ?? '');
const pct = (x: number | undefined): string => (x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);
const lines = [
  '| set | variant | queries | top-1 | top-5 | AUC | accept @FMR≤1% | false match @service | uncertain | in shortlist | p95 ms | load avg | file |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(({ f, r }) =>
    [
      r.dataset,
      (r.variant ?? 'engine default') + (isService(r) ? ' **(service default)**' : ''),
      `${r.n_queries}${r.query_sampling === 'all' ? '' : ' (sampled)'}`,
      pct(r.top1),
      pct(r.top5),
      r.auc.toFixed(3),
      pct(r.accept_at_far1),
      pct(r.false_match_rate),
      pct(r.uncertain_rate),
      pct(r.shortlist_recall),
      r.descriptor_cache?.includes('--cache-queries') ? 'n/a (cached queries)' : Math.round(r.ms_query_p95).toString(),
      String(r.machine.load_average_1m_at_end),
      f.replace(/^.*benchmarks\/results\//, ''),
    ]
      .join(' | ')
      .replace(/^/, '| ')
      .replace(/$/, ' |'),
  ),
];
const lnbnn = rows.filter(({ r }) => r.shortlist_variants);
if (lnbnn.length) {
  lines.push('', 'Shortlist variants (share of enrolled queries whose individual is within the first K individuals):', '');
  lines.push('| set | shortlist | K=1 | K=5 | K=15 | K=24 | K=48 |', '|---|---|---|---|---|---|---|');
  for (const { r } of lnbnn) {
    for (const [name, rec] of Object.entries(r.shortlist_variants!)) {
      lines.push(
        `| ${r.dataset} | ${name === 'global' ? 'global embedding (HNSW)' : 'LNBNN over XFeat descriptors'} | ${[1, 5, 15, 24, 48].map((k) => pct(rec[`recall_at_${k}`])).join(' | ')} |`,
      );
    }
  }
}
writeFileSync(out, lines.join('\n') + '\n');
console.log(lines.join('\n'));
