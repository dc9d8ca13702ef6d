/**
 * SVG plots of a bench:fleet result, written without a plotting library:
 * - what each owner heard as served (share of its answers: correct `match`, wrong `match`,
 *   `uncertain`, `no_match`), then the newcomer before and after the operator's pooled run;
 * - each pooled cell's effective sample against the one its bound needs.
 *
 *   npx tsx benchmarks/fleet-plots.ts benchmarks/results/fleet-holstein-dev-2026-11-28-12-owners.json [more.json]
 *     [--dir benchmarks/results/plots]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface FleetPass {
  pass: string;
  queries: number;
  queries_never_enrolled: number;
  correct_match: number;
  false_matches: number;
  uncertain: number;
  no_match: number;
}

export interface FleetResult {
  dataset: string;
  labelled_answers: number;
  fleet: FleetPass[];
  newcomer: { before: FleetPass; after: FleetPass };
  pooled_versions: { species: string | null; band: string; status: string; report: { effective_n: number; samples: number } | null }[];
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const SEGMENTS = [
  { key: 'correct_match', label: 'correct match', colour: '#2a7' },
  { key: 'false_matches', label: 'wrong match', colour: '#d22' },
  { key: 'uncertain', label: 'uncertain', colour: '#e9b949' },
  { key: 'no_match', label: 'no match', colour: '#9aa' },
] as const;

/** One horizontal bar per pass, split into the shares of its answers by verdict. */
export function fleetVerdictsSvg(r: FleetResult, title: string): string {
  const rows = [
    ...r.fleet.map((p, i) => ({ label: `owner ${i}`, p })),
    { label: 'newcomer, before', p: r.newcomer.before },
    { label: 'newcomer, after', p: r.newcomer.after },
  ];
  const W = 620;
  const left = 130;
  const right = 110;
  const top = 56;
  const rowH = 20;
  const H = top + rows.length * rowH + 56;
  const scale = W - left - right;
  const bars = rows
    .map(({ label, p }, i) => {
      const y = top + i * rowH;
      // Correct and wrong matches, uncertain and no match: together the pass's answers.
      const shares = SEGMENTS.map((s) => p[s.key] / Math.max(1, p.queries));
      let x = left;
      const parts = shares.map((share, k) => {
        const w = share * scale;
        const rect = `<rect x="${x.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="${rowH - 4}" fill="${SEGMENTS[k]!.colour}"/>`;
        x += w;
        return rect;
      });
      const note = `${p.correct_match} of ${p.queries - p.queries_never_enrolled}`;
      return `<text x="${left - 6}" y="${y + rowH / 2 + 4}" text-anchor="end">${esc(label)}</text>${parts.join('')}<text x="${W - right + 6}" y="${y + rowH / 2 + 4}" font-size="10">${esc(note)}</text>`;
    })
    .join('\n');
  const axisY = top + rows.length * rowH + 4;
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((t) => `<text x="${(left + t * scale).toFixed(1)}" y="${axisY + 12}" text-anchor="middle">${t * 100}%</text>`)
    .join('');
  const legend = SEGMENTS.map(
    (s, k) =>
      `<rect x="${left + k * 120}" y="${axisY + 24}" width="10" height="10" fill="${s.colour}"/><text x="${left + k * 120 + 14}" y="${axisY + 33}">${s.label}</text>`,
  ).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="#fff"/>
<text x="${W / 2}" y="20" text-anchor="middle" font-size="13">${esc(title)}</text>
<text x="${W - right + 6}" y="${top - 18}" font-size="10">correct match of</text>
<text x="${W - right + 6}" y="${top - 6}" font-size="10">enrolled queries</text>
${bars}
<line x1="${left}" y1="${axisY}" x2="${W - right}" y2="${axisY}" stroke="#000"/>
${ticks}
${legend}
</svg>
`;
}

/** Each pooled cell's effective sample (owners' answers counted as correlated) against the one a 1% bound needs. */
export function fleetEffectiveSvg(r: FleetResult, title: string, needed = 299): string {
  const cells = r.pooled_versions.filter((v) => v.report);
  const W = 620;
  const left = 150;
  const right = 60;
  const top = 40;
  const rowH = 24;
  const H = top + cells.length * rowH + 40;
  const max = Math.max(needed * 1.2, ...cells.map((c) => c.report!.effective_n));
  const x = (v: number): number => left + (v / max) * (W - left - right);
  const bars = cells
    .map((c, i) => {
      const y = top + i * rowH;
      const n = c.report!.effective_n;
      return `<text x="${left - 6}" y="${y + rowH / 2 + 4}" text-anchor="end">${esc(`${c.species ?? 'any species'}, ${c.band} herds`)}</text><rect x="${left}" y="${y + 3}" width="${(x(n) - left).toFixed(1)}" height="${rowH - 6}" fill="${c.status === 'refused' ? '#c66' : '#2a7'}"/><text x="${left + 6}" y="${y + rowH / 2 + 4}" font-size="10" fill="#fff">worth about ${n} independent answers (${esc(c.status)})</text>`;
    })
    .join('\n');
  const bottom = top + cells.length * rowH;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="#fff"/>
<text x="${W / 2}" y="20" text-anchor="middle" font-size="13">${esc(title)}</text>
${bars}
<line x1="${x(needed).toFixed(1)}" y1="${top - 4}" x2="${x(needed).toFixed(1)}" y2="${bottom + 4}" stroke="#000" stroke-dasharray="5 3" stroke-width="2"/>
<text x="${x(needed).toFixed(1)}" y="${bottom + 18}" text-anchor="middle">${needed} independent answers needed for 1%</text>
</svg>
`;
}

/** Writes `<stem>-verdicts.svg` and `<stem>-effective.svg` under `dir`; returns their paths. */
export function writeFleetPlots(dir: string, stem: string, r: FleetResult): string[] {
  mkdirSync(dir, { recursive: true });
  const verdicts = join(dir, `${stem}-verdicts.svg`);
  const effective = join(dir, `${stem}-effective.svg`);
  const herds = `${r.fleet.length} owners, ${r.labelled_answers} labelled answers`;
  writeFileSync(verdicts, fleetVerdictsSvg(r, `${r.dataset}, ${herds}: what each owner heard`));
  writeFileSync(effective, fleetEffectiveSvg(r, `${r.dataset}, ${herds}: the pooled fit's evidence`));
  return [verdicts, effective];
}

function main(argv: string[]): void {
  const at = argv.indexOf('--dir');
  const dir = at >= 0 ? argv[at + 1]! : 'benchmarks/results/plots';
  for (const file of argv.filter((a, i) => a.endsWith('.json') && !(at >= 0 && i === at + 1))) {
    const r = JSON.parse(readFileSync(file, 'utf8')) as FleetResult;
    console.log(writeFleetPlots(dir, basename(file, '.json'), r).join('\n'));
  }
}
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/benchmarks\//, '/benchmarks/'))) main(process.argv.slice(2));
