/**
 * SVG plots for the accuracy benchmark, written without a plotting library:
 * the histogram of top-1 probabilities for right and wrong answers (open-set
 * queries count as wrong) with the service's `match` and `uncertain`
 * thresholds drawn, and the ROC of the same scores.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ScoredQuery {
  p: number;
  correct: boolean;
}

const W = 560;
const H = 320;
const M = { l: 50, r: 20, t: 36, b: 44 };
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function frame(title: string, xLabel: string, yLabel: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="#fff"/>
<text x="${W / 2}" y="18" text-anchor="middle" font-size="13">${esc(title)}</text>
<line x1="${M.l}" y1="${H - M.b}" x2="${W - M.r}" y2="${H - M.b}" stroke="#000"/>
<line x1="${M.l}" y1="${M.t}" x2="${M.l}" y2="${H - M.b}" stroke="#000"/>
<text x="${W / 2}" y="${H - 8}" text-anchor="middle">${esc(xLabel)}</text>
<text x="14" y="${H / 2}" text-anchor="middle" transform="rotate(-90 14 ${H / 2})">${esc(yLabel)}</text>
${body}
</svg>
`;
}

const px = (x: number): number => M.l + x * (W - M.l - M.r);
const py = (y: number): number => H - M.b - y * (H - M.t - M.b);

function ticks(yAxis = false): string {
  const x = [0, 0.25, 0.5, 0.75, 1].map((t) => `<text x="${px(t)}" y="${H - M.b + 14}" text-anchor="middle">${t}</text>`);
  const y = yAxis ? [0, 0.25, 0.5, 0.75, 1].map((t) => `<text x="${M.l - 6}" y="${py(t) + 4}" text-anchor="end">${t}</text>`) : [];
  return [...x, ...y].join('');
}

/** Histogram (20 bins over 0..1) of true and false top-1 scores, each normalised to its own count. */
export function histogramSvg(qs: readonly ScoredQuery[], thresholds: { match: number; uncertain: number }, title: string): string {
  const bins = 20;
  const count = (ok: boolean): number[] => {
    const h = new Array<number>(bins).fill(0);
    const sel = qs.filter((q) => q.correct === ok);
    for (const q of sel) h[Math.min(bins - 1, Math.floor(q.p * bins))]! += 1 / Math.max(1, sel.length);
    return h;
  };
  const t = count(true);
  const f = count(false);
  const top = Math.max(0.05, ...t, ...f);
  const bw = (W - M.l - M.r) / bins;
  const bars = (h: number[], colour: string, dx: number): string =>
    h
      .map(
        (v, i) =>
          `<rect x="${px(i / bins) + dx}" y="${py(v / top)}" width="${bw / 2 - 1}" height="${py(0) - py(v / top)}" fill="${colour}"/>`,
      )
      .join('');
  const line = (x: number, colour: string, label: string): string =>
    `<line x1="${px(x)}" y1="${M.t}" x2="${px(x)}" y2="${H - M.b}" stroke="${colour}" stroke-dasharray="5 3" stroke-width="2"/><text x="${px(x) - 4}" y="${M.t + 12}" text-anchor="end" fill="${colour}">${label} ${x.toFixed(2)}</text>`;
  const nT = qs.filter((q) => q.correct).length;
  const ly = M.t + 24;
  const legend = `<rect x="${W - 230}" y="${ly}" width="10" height="10" fill="#2a7"/><text x="${W - 216}" y="${ly + 9}">right top-1 (n=${nT})</text>
<rect x="${W - 230}" y="${ly + 16}" width="10" height="10" fill="#d44"/><text x="${W - 216}" y="${ly + 25}">wrong or open set (n=${qs.length - nT})</text>`;
  return frame(
    title,
    'top-1 probability',
    'share of answers',
    bars(t, '#2a7', 0) +
      bars(f, '#d44', bw / 2) +
      line(thresholds.match, '#000', 'match') +
      line(thresholds.uncertain, '#888', 'uncertain') +
      legend +
      ticks(),
  );
}

/** ROC curve of the top-1 score: right answers against wrong or open-set ones. */
export function rocSvg(qs: readonly ScoredQuery[], title: string, auc: number): string {
  const sorted = [...qs].sort((a, b) => b.p - a.p);
  const nP = Math.max(1, qs.filter((q) => q.correct).length);
  const nN = Math.max(1, qs.length - qs.filter((q) => q.correct).length);
  let tp = 0;
  let fp = 0;
  const pts = [`${px(0)},${py(0)}`];
  for (const q of sorted) {
    if (q.correct) tp++;
    else fp++;
    pts.push(`${px(fp / nN)},${py(tp / nP)}`);
  }
  const body = `<line x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(1)}" stroke="#bbb" stroke-dasharray="4 3"/>
<polyline points="${pts.join(' ')}" fill="none" stroke="#25c" stroke-width="2"/>
<text x="${px(0.6)}" y="${py(0.2)}">AUC ${auc.toFixed(3)}</text>`;
  return frame(title, 'false positive rate (wrong or open-set top-1 accepted)', 'true positive rate', body + ticks(true));
}

function rocAucOf(qs: readonly ScoredQuery[]): number {
  const pos = qs.filter((q) => q.correct).map((q) => q.p);
  const neg = qs.filter((q) => !q.correct).map((q) => q.p);
  let s = 0;
  for (const a of pos) for (const b of neg) s += a > b ? 1 : a === b ? 0.5 : 0;
  return s / Math.max(1, pos.length * neg.length);
}

/** Writes `<stem>-hist.svg` and `<stem>-roc.svg` under `dir`; returns their paths. */
export function writePlots(
  dir: string,
  stem: string,
  qs: readonly ScoredQuery[],
  cal: { matchThreshold: number; uncertainThreshold: number },
  title: string,
): string[] {
  mkdirSync(dir, { recursive: true });
  const hist = join(dir, `${stem}-hist.svg`);
  const roc = join(dir, `${stem}-roc.svg`);
  writeFileSync(hist, histogramSvg(qs, { match: cal.matchThreshold, uncertain: cal.uncertainThreshold }, `${title}: top-1 scores`));
  writeFileSync(roc, rocSvg(qs, `${title}: ROC`, rocAucOf(qs)));
  return [hist, roc];
}

/**
 * Re-draws the plots of saved results (their `per_query` scores and calibration):
 *   npx tsx benchmarks/plots.ts benchmarks/results/nyala-dev.json [more.json] [--dir benchmarks/results/plots]
 */
async function main(argv: string[]): Promise<void> {
  const { readFileSync } = await import('node:fs');
  const at = argv.indexOf('--dir');
  const dir = at >= 0 ? argv[at + 1]! : 'benchmarks/results/plots';
  for (const file of argv.filter((a, i) => a.endsWith('.json') && !(at >= 0 && i === at + 1))) {
    const r = JSON.parse(readFileSync(file, 'utf8')) as {
      dataset: string;
      variant: string;
      per_query: ScoredQuery[];
      calibration: { params: { matchThreshold: number; uncertainThreshold: number } };
    };
    const stem = `${r.dataset}-${r.variant.replace(/[^A-Za-z0-9]+/g, '-')}`;
    console.log(writePlots(dir, stem, r.per_query, r.calibration.params, `${r.dataset}: ${r.variant}`).join('\n'));
  }
}
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/benchmarks\//, '/benchmarks/')))
  await main(process.argv.slice(2));
