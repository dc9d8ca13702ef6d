/** A dependency-free SVG line chart: one line per series, x and y axes with ticks. */
export interface Series {
  name: string;
  points: [number, number][];
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function ticks(max: number, n = 5): number[] {
  const step = Math.pow(10, Math.floor(Math.log10(max / n || 1)));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => max / s <= n) ?? step * 10;
  return Array.from({ length: Math.floor(max / nice) + 1 }, (_, i) => +(i * nice).toFixed(6));
}

export function lineChart(o: { title: string; x: string; y: string; series: Series[]; note?: string }): string {
  const W = 720,
    H = 420,
    L = 70,
    R = 170,
    T = 50,
    B = 70;
  const all = o.series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y));
  const xMax = Math.max(1, ...all.map(([x]) => x)) * 1.05;
  const yMax = Math.max(0.001, ...all.map(([, y]) => y)) * 1.1;
  const sx = (x: number) => L + (x / xMax) * (W - L - R);
  const sy = (y: number) => H - B - (y / yMax) * (H - T - B);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${W / 2}" y="24" text-anchor="middle" font-size="15">${esc(o.title)}</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
  ];
  for (const t of ticks(xMax)) out.push(`<text x="${sx(t)}" y="${H - B + 16}" text-anchor="middle">${t}</text>`);
  for (const t of ticks(yMax)) {
    out.push(`<line x1="${L}" y1="${sy(t)}" x2="${W - R}" y2="${sy(t)}" stroke="#eee"/>`);
    out.push(`<text x="${L - 6}" y="${sy(t) + 4}" text-anchor="end">${t}</text>`);
  }
  out.push(`<text x="${(L + W - R) / 2}" y="${H - B + 38}" text-anchor="middle">${esc(o.x)}</text>`);
  out.push(`<text transform="translate(18 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${esc(o.y)}</text>`);
  o.series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    const pts = s.points.filter(([, y]) => Number.isFinite(y));
    out.push(
      `<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const [x, y] of pts) out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="3" fill="${c}"/>`);
    out.push(
      `<rect x="${W - R + 12}" y="${T + i * 20}" width="12" height="3" fill="${c}"/><text x="${W - R + 30}" y="${T + i * 20 + 5}">${esc(s.name)}</text>`,
    );
  });
  if (o.note) out.push(`<text x="${L}" y="${H - 10}" font-size="10" fill="#555">${esc(o.note)}</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
